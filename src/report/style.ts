// The report's inline stylesheet: stage colours, outcome marks, the timeline's lanes.
export const REPORT_CSS = `
:root { --plan:#4c78a8; --prd:#9d6fcf; --exec:#54a24b; --verify:#2ca7a0; --fix:#f58518; --review:#d6609b; --fail:#d62728; }
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; padding: 16px 24px; color: #1d2330; background: #f6f7f9; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
.meta { color: #4a5263; } .meta b { color: #1d2330; }
.status-completed { color: #2d7d2d; } .status-failed, .status-cancelled { color: var(--fail); } .status-stopped, .status-running, .status-cancelling { color: #b36b00; }
section { background: #fff; border: 1px solid #dde1e8; border-radius: 6px; padding: 12px 16px; margin-top: 16px; }
#timeline { position: relative; }
.row { display: flex; align-items: center; height: 30px; border-bottom: 1px solid #eef0f4; }
.row .label { width: 120px; flex: none; font-size: 12px; color: #4a5263; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.track { position: relative; flex: 1; height: 100%; }
.band { position: absolute; top: 3px; bottom: 3px; border-radius: 3px; font-size: 11px; color: #fff; padding: 2px 4px; overflow: hidden; white-space: nowrap; opacity: .85; }
.bar { position: absolute; top: 5px; bottom: 5px; min-width: 3px; border-radius: 3px; font-size: 11px; color: #fff; padding: 1px 4px; overflow: hidden; white-space: nowrap; cursor: pointer; border: 2px solid transparent; }
.bar:focus, .bar.selected { outline: 3px solid #1d2330; outline-offset: 1px; }
.stage-team-plan { background: var(--plan); } .stage-team-prd { background: var(--prd); } .stage-team-exec { background: var(--exec); }
.stage-team-verify { background: var(--verify); } .stage-team-fix { background: var(--fix); } .stage-ralph-review { background: var(--review); }
.bar.outcome-failed { border-color: var(--fail); background-image: repeating-linear-gradient(45deg, transparent 0 6px, rgba(214,39,40,.55) 6px 10px); }
.bar.outcome-interrupted { background-image: repeating-linear-gradient(-45deg, transparent 0 5px, rgba(0,0,0,.35) 5px 9px); }
.bar.outcome-running { border-style: dashed; border-color: #1d2330; }
.bar.outcome-conflict, .bar.outcome-awaiting_approval { border-color: #1d2330; border-style: double; }
.restart { position: absolute; top: 0; bottom: 0; width: 0; border-left: 2px dashed #b36b00; z-index: 2; pointer-events: none; }
.legend span { display: inline-block; margin-right: 12px; font-size: 12px; } .legend i { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -2px; margin-right: 4px; }
#evidence dl { display: grid; grid-template-columns: 110px 1fr; gap: 4px 12px; margin: 0; } #evidence dt { color: #4a5263; } #evidence dd { margin: 0; white-space: pre-wrap; word-break: break-word; }
table { border-collapse: collapse; width: 100%; font-size: 12px; } th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eef0f4; vertical-align: top; }
td.detail { font-family: ui-monospace, monospace; word-break: break-all; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.usage { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 16px; }
.handoff { margin: 6px 0; } .handoff pre { white-space: pre-wrap; margin: 6px 0 0; font-size: 12px; }
input#filter { width: 100%; padding: 6px 8px; margin-bottom: 8px; font: inherit; }
.empty { color: #4a5263; font-style: italic; }
`;
