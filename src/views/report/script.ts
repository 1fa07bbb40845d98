// The report's inline script: renders the embedded data with DOM text nodes only (agent text is hostile).
import { DETAIL_JS } from './script-detail.js';
import { TIMELINE_JS } from './script-timeline.js';

const HEAD_JS = String.raw`
  var data = JSON.parse(document.getElementById('report-data').textContent);
  function el(tag, cls, text) { var n = document.createElement(tag); if (cls) n.className = cls; if (text !== undefined) n.textContent = String(text); return n; }
  function add(parent) { for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]); return parent; }
  function usd(x) { return '$' + Number(x || 0).toFixed(4); }
  function secs(ms) { return (ms / 1000).toFixed(1) + 's'; }

  var head = document.getElementById('head');
  add(head, el('h1', '', 'teamline run ' + data.run.run_id));
  var meta = add(el('div', 'meta'), el('span', '', 'status '), el('b', 'status-' + data.status, data.status), el('span', '', ' · stage ' + data.stage + ' · ' + (data.run.mode || 'team') + ' · ' + data.attemptCounts + ' · ' + data.workers + (data.workers === 1 ? ' worker · ' : ' workers · ') + usd(data.usage.run.costUsd) + ' · tokens ' + data.usage.run.tokens.input + ' in / ' + data.usage.run.tokens.output + ' out · ' + secs(data.end - data.start)));
  add(head, meta, el('div', 'meta', 'task: ' + (data.run.task || '(none recorded)')));
  if (data.outcome) add(head, el('div', 'meta', 'outcome: ' + data.outcome));
  if (data.undriven) add(head, el('div', 'undriven', data.undriven));
`;

const TABLES_JS = String.raw`
  function usageTable(title, rows) {
    var t = el('table', 'usage-' + title); add(t, add(el('tr'), el('th', '', title), el('th', 'num', 'cost'), el('th', 'num', 'tokens in'), el('th', 'num', 'tokens out')));
    rows.forEach(function (u) {
      var none = u.reported ? undefined : '—';
      var tr = add(el('tr'), el('td', '', u.key + (u.title ? ' — ' + u.title : '')), el('td', 'num', none || usd(u.costUsd)), el('td', 'num', none || u.tokens.input), el('td', 'num', none || u.tokens.output));
      tr.dataset.key = u.key; if (!u.reported) tr.className = 'unreported';
      t.appendChild(tr);
    });
    var u = data.usage.run;
    var total = add(el('tr', 'total'), el('td', '', 'run'), el('td', 'num', usd(u.costUsd)), el('td', 'num', u.tokens.input), el('td', 'num', u.tokens.output));
    return add(t, total);
  }
  var silent = data.usage.byAgent.filter(function (u) { return !u.reported; }).map(function (u) { return u.key; });
  add(document.getElementById('usage'), usageTable('task', data.usage.byTask), usageTable('stage', data.usage.byStage), usageTable('agent', data.usage.byAgent));
  if (silent.length) document.getElementById('usage').after(el('p', 'empty usage-note', '—: no cost or tokens reported (agent ' + silent.join(', ') + ' reports none)'));
  (data.usage.spend || []).slice().reverse().forEach(function (line) { document.getElementById('usage').after(el('p', 'usage-spend', line)); });

  var handoffs = document.getElementById('handoffs');
  if (!data.handoffs.length) handoffs.appendChild(el('p', 'empty', 'no handoff yet'));
  data.handoffs.forEach(function (h) { var d = add(el('details', 'handoff'), el('summary', '', h.name), el('pre', '', h.text)); handoffs.appendChild(d); });

  var routing = document.getElementById('routing');
  if (data.routing.costMode) routing.appendChild(el('p', '', 'cost mode ' + data.routing.costMode + ': ' + (data.routing.models.map(function (m) { return m[0] + ' ' + m[1]; }).join(', ') || 'no agent with a model table')));
  if (!data.routing.decisions.length) routing.appendChild(el('p', 'empty', 'one agent per stage: no routing decision'));
  else { var rl = el('ul'); data.routing.decisions.forEach(function (line) { rl.appendChild(el('li', 'routing', line)); }); routing.appendChild(rl); }

  var attention = document.getElementById('attention');
  if (!data.attention.length) attention.appendChild(el('p', 'empty', 'nothing'));
  else { var ul = el('ul'); data.attention.forEach(function (line) { ul.appendChild(el('li', '', line)); }); attention.appendChild(ul); }

  var table = document.getElementById('events');
  var rows = data.events.map(function (e) {
    var tr = add(el('tr'), el('td', '', e.at), el('td', '', e.event), el('td', '', e.task), el('td', '', e.attempt), el('td', 'detail', e.detail));
    tr.dataset.text = (e.event + ' ' + e.task + ' ' + e.detail).toLowerCase();
    table.appendChild(tr);
    return tr;
  });
  var filter = document.getElementById('filter');
  var count = document.getElementById('event-count');
  function apply() { var q = filter.value.toLowerCase(); var n = 0; rows.forEach(function (tr) { var hit = tr.dataset.text.indexOf(q) >= 0; tr.hidden = !hit; if (hit) n++; }); count.textContent = n + ' of ' + rows.length + ' events'; }
  filter.addEventListener('input', apply); apply();
`;

export const REPORT_JS = `
(function () {${HEAD_JS}${DETAIL_JS}${TIMELINE_JS}${TABLES_JS}})();
`;
