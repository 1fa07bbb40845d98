// The detail part of the report's script: what one attempt did, shown when its bar is clicked,
// with a verify's or review's verdict, its defects and its gates. Runs inside the page script's
// function (script.ts): `el`, `add`, `usd` and `secs` are its.
export const DETAIL_JS = String.raw`
  var selected;
  function grid(cls, head, rows) {
    var t = add(el('table', cls), add.apply(null, [el('tr')].concat(head.map(function (h) { return el('th', '', h); }))));
    rows.forEach(function (r) { t.appendChild(add.apply(null, [el('tr')].concat(r.map(function (c) { return el('td', '', c); })))); });
    return t;
  }
  function verdictText(v) {
    var n = v.defects.length || v.reasons.length;
    return v.verdict + (n ? ' (' + n + (v.defects.length ? ' defect' : ' reason') + (n > 1 ? 's' : '') + ')' : '');
  }
  function gateEnd(g) { return g.timedOut ? 'timed out' : (g.exitCode === null ? 'no exit code' : 'exit ' + g.exitCode); }
  function show(a, node) {
    if (selected) selected.classList.remove('selected');
    selected = node; node.classList.add('selected');
    var box = document.getElementById('evidence');
    box.textContent = '';
    add(box, el('h2', '', a.task + (a.title ? ' — ' + a.title : '') + ' · attempt ' + a.attempt));
    var dl = el('dl');
    var end = a.end === undefined || a.end === null ? undefined : a.end;
    var status = a.status + (a.killed ? ' (killed)' : '') + (a.adopted ? ' (adopted after a restart)' : '') + (a.stalled ? ' (stalled)' : '');
    [['stage', a.stage], ['agent', a.agent], ['worker', a.lane || 'never started'], ['routing', a.routing || ''], ['status', status],
     ['verdict', a.verdict ? verdictText(a.verdict) : (a.gates && a.verdictFailed ? 'fail (a gate failed)' : '')],
     ['duration', end === undefined ? 'running' : secs(end - a.start)], ['cost', usd(a.costUsd) + ' · ' + a.tokens.input + ' in / ' + a.tokens.output + ' out'],
     ['retry of', a.retryOf || ''], ['evidence', a.evidence || '(none)'], ['artifacts', a.artifacts.join('\n') || '(none)'], ['next', a.next || '']]
      .forEach(function (kv) { if (kv[1] !== '') add(dl, el('dt', '', kv[0]), el('dd', 'field-' + kv[0], kv[1])); });
    if (a.verdictFailed) dl.querySelector('.field-verdict').classList.add('fail');
    box.appendChild(dl);
    if (a.verdict && a.verdict.defects.length) add(box, el('h3', '', 'defects'), grid('defects', ['id', 'description', 'task'], a.verdict.defects.map(function (d) { return [d.id, d.description, d.task || '']; })));
    if (a.verdict && a.verdict.reasons.length) add(box, el('h3', '', 'reasons'), grid('reasons', ['reason'], a.verdict.reasons.map(function (r) { return [r]; })));
    if (a.gates && a.gates.length) add(box, el('h3', '', 'gates'), grid('gates', ['command', 'exit code', 'duration'], a.gates.map(function (g) { return [g.command, gateEnd(g), secs(g.durationMs)]; })));
  }
`;
