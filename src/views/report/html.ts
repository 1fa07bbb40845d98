// One self-contained HTML page: inline CSS and script, the data embedded as JSON; nothing from the network.
import type { ReportData } from './data.js';
import { REPORT_JS } from './script.js';
import { REPORT_CSS } from './style.js';

// The JSON for a <script> element: `<` escaped so no text can close the element, plus the JS line separators.
export function embedJson(data: unknown): string {
  return JSON.stringify(data).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// The report page of a run.
export function renderReport(data: ReportData): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>teamline report ${escapeHtml(data.run.run_id)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header id="head"></header>
<section><h2>Timeline</h2>
<div class="legend"><span><i class="stage-team-plan"></i>plan</span><span><i class="stage-team-prd"></i>prd</span><span><i class="stage-team-exec"></i>exec</span><span><i class="stage-team-verify"></i>verify</span><span><i class="stage-team-fix"></i>fix</span><span><i class="stage-ralph-review"></i>review</span>
<span class="key-verdict-fail"><i class="swatch verdict-fail"></i>verify failed (or review rejected)</span><span class="key-failed"><i class="swatch outcome-failed"></i>attempt failed</span><span class="key-interrupted"><i class="swatch outcome-interrupted"></i>interrupted</span><span class="key-running"><i class="swatch outcome-running"></i>running</span>
<span class="key-restart"><i class="line marker-restart"></i>restart (team resume)</span><span class="key-cancel"><i class="line marker-cancel"></i>cancel</span><span>↻ retry · ✕ killed · ⟲ adopted after a restart · ‖ stalled</span></div>
<div id="timeline"></div></section>
<section id="evidence"><p class="empty">Click a bar to see that attempt's evidence.</p></section>
<section><h2>Needs attention</h2><div id="attention"></div></section>
<section><h2>Routing</h2><div id="routing"></div></section>
<section><h2>Cost and tokens</h2><div id="usage" class="usage"></div></section>
<section><h2>Handoffs</h2><div id="handoffs"></div></section>
<section><h2>Events <small id="event-count"></small></h2><input id="filter" type="search" placeholder="filter events (name, task, detail)" aria-label="filter events">
<table id="events"><tr><th>at</th><th>event</th><th>task</th><th>attempt</th><th>detail</th></tr></table></section>
<script type="application/json" id="report-data">${embedJson(data)}</script>
<script>${REPORT_JS}</script>
</body>
</html>
`;
}
