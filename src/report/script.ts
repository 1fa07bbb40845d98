// The report's inline script: renders the embedded data with DOM text nodes only (agent text is hostile).
export const REPORT_JS = String.raw`
(function () {
  var data = JSON.parse(document.getElementById('report-data').textContent);
  function el(tag, cls, text) { var n = document.createElement(tag); if (cls) n.className = cls; if (text !== undefined) n.textContent = String(text); return n; }
  function add(parent) { for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]); return parent; }
  function usd(x) { return '$' + Number(x || 0).toFixed(4); }
  function secs(ms) { return (ms / 1000).toFixed(1) + 's'; }
  var span = Math.max(1, data.end - data.start);
  function pct(t) { return (100 * (t - data.start) / span) + '%'; }
  function width(a, b) { return Math.max(0, 100 * (b - a) / span) + '%'; }

  var head = document.getElementById('head');
  add(head, el('h1', '', 'teamline run ' + data.run.run_id));
  var meta = add(el('div', 'meta'), el('span', '', 'status '), el('b', 'status-' + data.status, data.status), el('span', '', ' · stage ' + data.stage + ' · ' + data.run.mode + ' · ' + data.run.workers + ' workers · ' + usd(data.usage.run.costUsd) + ' · tokens ' + data.usage.run.tokens.input + ' in / ' + data.usage.run.tokens.output + ' out · ' + secs(data.end - data.start)));
  add(head, meta, el('div', 'meta', 'task: ' + data.run.task));
  if (data.outcome) add(head, el('div', 'meta', 'outcome: ' + data.outcome));

  var timeline = document.getElementById('timeline');
  var bandTrack = el('div', 'track');
  var bandRow = add(el('div', 'row'), el('div', 'label', 'stages'), bandTrack);
  data.bands.forEach(function (b) {
    var label = b.stage + (b.loop ? ' · fix loop ' + b.loop : '') + (data.run.mode === 'ralph' ? ' · it ' + b.iteration : '');
    var n = el('div', 'band stage-' + b.stage, label);
    n.style.left = pct(b.start); n.style.width = width(b.start, b.end); n.title = label;
    n.dataset.loop = String(b.loop);
    bandTrack.appendChild(n);
  });
  timeline.appendChild(bandRow);
  var lanes = [];
  data.attempts.forEach(function (a) { if (lanes.indexOf(a.lane) < 0) lanes.push(a.lane); });
  lanes.sort(function (x, y) { return x.localeCompare(y, undefined, { numeric: true }); });
  var selected;
  lanes.forEach(function (lane) {
    var track = el('div', 'track');
    var row = add(el('div', 'row lane'), el('div', 'label', lane), track);
    row.dataset.lane = lane;
    data.attempts.filter(function (a) { return a.lane === lane; }).forEach(function (a) {
      var marks = (a.retryOf ? '↻ ' : '') + (a.killed ? '✕ ' : '') + (a.adopted ? '⟲ ' : '') + (a.stalled ? '‖ ' : '');
      var bar = el('div', 'bar stage-' + a.stage + ' outcome-' + a.status, marks + a.task + ' a' + a.attempt);
      var end = a.end === undefined || a.end === null ? data.end : a.end;
      bar.style.left = pct(a.start); bar.style.width = width(a.start, end);
      bar.title = a.task + ' attempt ' + a.attempt + ' · ' + a.stage + ' · ' + a.status;
      bar.tabIndex = 0; bar.setAttribute('role', 'button');
      bar.dataset.attempt = a.id;
      bar.addEventListener('click', function () { show(a, bar); });
      bar.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') show(a, bar); });
      track.appendChild(bar);
    });
    timeline.appendChild(row);
  });
  data.restarts.forEach(function (t) {
    var m = el('div', 'restart'); m.style.left = 'calc(120px + (100% - 120px) * ' + ((t - data.start) / span) + ')'; m.title = 'restart (team resume)';
    timeline.appendChild(m);
  });
  if (!data.attempts.length) timeline.appendChild(el('p', 'empty', 'no attempt yet'));

  function show(a, bar) {
    if (selected) selected.classList.remove('selected');
    selected = bar; bar.classList.add('selected');
    var box = document.getElementById('evidence');
    box.textContent = '';
    add(box, el('h2', '', a.task + ' · attempt ' + a.attempt));
    var dl = el('dl');
    var end = a.end === undefined || a.end === null ? undefined : a.end;
    [['stage', a.stage], ['agent', a.agent], ['worker', a.lane], ['status', a.status + (a.killed ? ' (killed)' : '') + (a.adopted ? ' (adopted after a restart)' : '') + (a.stalled ? ' (stalled)' : '')],
     ['duration', end === undefined ? 'running' : secs(end - a.start)], ['cost', usd(a.costUsd) + ' · ' + a.tokens.input + ' in / ' + a.tokens.output + ' out'],
     ['retry of', a.retryOf || ''], ['evidence', a.evidence || '(none)'], ['artifacts', a.artifacts.join('\n') || '(none)'], ['next', a.next || '']]
      .forEach(function (kv) { if (kv[1] !== '') add(dl, el('dt', '', kv[0]), el('dd', 'field-' + kv[0], kv[1])); });
    box.appendChild(dl);
  }

  function usageTable(title, rows) {
    var t = el('table'); add(t, add(el('tr'), el('th', '', title), el('th', 'num', 'cost'), el('th', 'num', 'tokens in'), el('th', 'num', 'tokens out')));
    Object.keys(rows).forEach(function (k) { var u = rows[k]; add(t, add(el('tr'), el('td', '', k), el('td', 'num', usd(u.costUsd)), el('td', 'num', u.tokens.input), el('td', 'num', u.tokens.output))); });
    return t;
  }
  add(document.getElementById('usage'), usageTable('task', data.usage.byTask), usageTable('stage', data.usage.byStage), usageTable('agent', data.usage.byAgent));

  var handoffs = document.getElementById('handoffs');
  if (!data.handoffs.length) handoffs.appendChild(el('p', 'empty', 'no handoff yet'));
  data.handoffs.forEach(function (h) { var d = add(el('details', 'handoff'), el('summary', '', h.name), el('pre', '', h.text)); handoffs.appendChild(d); });

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
})();
`;
