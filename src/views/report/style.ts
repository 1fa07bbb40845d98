// The report's inline stylesheet: stage colours, outcome marks, the timeline's axis, lanes and markers.
export const REPORT_CSS = `
:root { --plan:#4c78a8; --prd:#9d6fcf; --exec:#54a24b; --verify:#2ca7a0; --fix:#f58518; --review:#d6609b; --fail:#d62728; --restart:#b36b00; --cancel:#7a1f9c; }
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; padding: 16px 24px; color: #1d2330; background: #f6f7f9; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; } h3 { font-size: 13px; margin: 12px 0 4px; }
.meta { color: #4a5263; } .meta b { color: #1d2330; }
.status-completed { color: #2d7d2d; } .status-failed, .status-cancelled { color: var(--fail); } .status-stopped, .status-running, .status-cancelling { color: #b36b00; }
.undriven { margin-top: 8px; padding: 6px 10px; border-left: 4px solid var(--fail); background: #fdecec; font-weight: 600; }
section { background: #fff; border: 1px solid #dde1e8; border-radius: 6px; padding: 12px 16px; margin-top: 16px; }
#timeline { position: relative; }
.row { display: flex; align-items: center; height: 30px; border-bottom: 1px solid #eef0f4; }
.row .label { width: 120px; flex: none; font-size: 12px; color: #4a5263; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.track { position: relative; flex: 1; height: 100%; }
.axis-row { height: 22px; } .marker-row { height: 24px; }
.tick { position: absolute; top: 0; bottom: 0; border-left: 1px solid #c4c9d4; }
.tick-label { position: absolute; left: 3px; top: 3px; font-size: 11px; color: #4a5263; white-space: nowrap; font-variant-numeric: tabular-nums; }
.band { position: absolute; top: 3px; bottom: 3px; border-radius: 3px; font-size: 11px; color: #fff; padding: 3px 3px; overflow: hidden; white-space: nowrap; opacity: .85; border-right: 1px solid #fff; }
.bar { position: absolute; top: 5px; bottom: 5px; min-width: 3px; border-radius: 3px; font-size: 11px; color: #fff; padding: 1px 4px; overflow: hidden; white-space: nowrap; cursor: pointer; border: 2px solid transparent; text-shadow: 0 0 2px rgba(0,0,0,.6); }
.bar.ellipsis { text-overflow: ellipsis; }
.bar:focus, .bar.selected, button.idle.selected { outline: 3px solid #1d2330; outline-offset: 1px; }
.stage-team-plan { background: var(--plan); } .stage-team-prd { background: var(--prd); } .stage-team-exec { background: var(--exec); }
.stage-team-verify { background: var(--verify); } .stage-team-fix { background: var(--fix); } .stage-ralph-review { background: var(--review); }
.outcome-failed { border-color: var(--fail); background-image: repeating-linear-gradient(45deg, transparent 0 6px, rgba(214,39,40,.55) 6px 10px); }
.outcome-interrupted, .outcome-rate-limited { background-image: repeating-linear-gradient(-45deg, transparent 0 5px, rgba(0,0,0,.35) 5px 9px); }
.outcome-running { border-style: dashed; border-color: #1d2330; }
.outcome-conflict, .outcome-awaiting_approval { border-color: #1d2330; border-style: double; }
.verdict-fail, .bar.verdict-fail { background-color: var(--fail); border-color: #7d1011; background-image: repeating-linear-gradient(-45deg, transparent 0 5px, rgba(255,255,255,.3) 5px 8px); }
.bar.verdict-fail { text-shadow: 0 0 3px #000, 0 0 1px #000; font-weight: 600; }
.bar { z-index: 1; }
/* Beneath the bars: a line shows between them, never through a bar's label. */
.marker { position: absolute; top: 22px; bottom: 0; width: 0; z-index: 0; pointer-events: none; }
.marker-restart { border-left: 2px dashed var(--restart); } .marker-cancel { border-left: 2px solid var(--cancel); }
.marker-label { position: absolute; top: 3px; font-size: 11px; padding: 1px 5px; border-radius: 3px; color: #fff; white-space: nowrap; border: 0; }
.marker-label-left { transform: translateX(-100%); }
.marker-label.marker-restart { background: var(--restart); } .marker-label.marker-cancel { background: var(--cancel); }
.legend { line-height: 22px; } .legend span { display: inline-block; margin-right: 14px; font-size: 12px; }
.legend i { display: inline-block; width: 14px; height: 12px; border-radius: 2px; vertical-align: -2px; margin-right: 4px; }
.legend i.swatch { background-color: #8a93a6; border: 2px solid #8a93a6; } .legend i.swatch.verdict-fail { background-color: var(--fail); border-color: #7d1011; }
.legend i.swatch.outcome-failed { border-color: var(--fail); } .legend i.swatch.outcome-running { border: 2px dashed #1d2330; background: #fff; }
.legend i.line { width: 0; height: 14px; border-radius: 0; margin: 0 8px 0 4px; }
.not-started { font-size: 12px; color: #4a5263; } button.idle { font: inherit; margin: 0 6px 0 0; padding: 1px 6px; border: 1px dashed #8a93a6; border-radius: 3px; background: #f6f7f9; cursor: pointer; }
#evidence dl { display: grid; grid-template-columns: 110px 1fr; gap: 4px 12px; margin: 0; } #evidence dt { color: #4a5263; } #evidence dd { margin: 0; white-space: pre-wrap; word-break: break-word; }
#evidence dd.fail { color: var(--fail); font-weight: 600; }
table { border-collapse: collapse; width: 100%; font-size: 12px; } th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eef0f4; vertical-align: top; }
td.detail { font-family: ui-monospace, monospace; word-break: break-all; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.gates td:first-child { font-family: ui-monospace, monospace; }
tr.total td { font-weight: 600; border-top: 1px solid #c4c9d4; } tr.unreported td { color: #6b7385; }
.usage { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 16px; align-items: start; }
.handoff { margin: 6px 0; } .handoff pre { white-space: pre-wrap; margin: 6px 0 0; font-size: 12px; }
input#filter { width: 100%; padding: 6px 8px; margin-bottom: 8px; font: inherit; }
.empty { color: #4a5263; font-style: italic; }
`;
