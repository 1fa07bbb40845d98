// The timeline part of the report's script: the time axis, the stage bands, one lane per worker,
// the restart and cancel markers, and the attempts whose worker never started. Runs inside the
// page script's function (script.ts): `data`, `el`, `add` and `show` are its.
export const TIMELINE_JS = String.raw`
  var span = Math.max(1, data.end - data.start);
  function frac(t) { return (t - data.start) / span; }
  function pct(t) { return (100 * frac(t)) + '%'; }
  function width(a, b) { return Math.max(0, 100 * (b - a) / span) + '%'; }
  function clock(ms) {
    var s = Math.round(ms / 100) / 10;
    if (s < 60) return (s % 1 ? s.toFixed(1) : String(s)) + 's';
    var m = Math.floor(s / 60), rest = Math.round(s - 60 * m);
    if (m < 60) return m + 'm' + (rest ? ' ' + rest + 's' : '');
    return Math.floor(m / 60) + 'h' + (m % 60 ? ' ' + (m % 60) + 'm' : '');
  }
  var STEPS = [100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 144e5, 288e5, 864e5];
  // Ticks at a round step, as many as fit one per 80 px of the track.
  function drawAxis(track) {
    track.textContent = '';
    var px = track.clientWidth || 600, most = Math.max(2, Math.floor(px / 80));
    var step = STEPS.filter(function (s) { return span / s <= most; })[0] || STEPS[STEPS.length - 1];
    // A label needs about 40 px on the right of its tick.
    for (var t = 0; t <= span && (span - t) / span * px >= 40; t += step) {
      var tick = el('div', 'tick'); tick.style.left = (100 * t / span) + '%';
      add(track, add(tick, el('span', 'tick-label', clock(t))));
    }
  }
  // The longest of the labels that fits the node (its title holds the whole text); a bar whose id
  // fits shows its title cut with an ellipsis after it.
  function fit(n, labels, ellipsis) {
    n.classList.remove('ellipsis');
    for (var i = 0; i < labels.length; i++) {
      n.textContent = labels[i];
      if (n.scrollWidth <= n.clientWidth) {
        if (i && ellipsis) { n.textContent = labels[0]; n.classList.add('ellipsis'); }
        n.dataset.cut = i ? '1' : ''; return;
      }
    }
    n.textContent = ''; n.dataset.cut = '1';
  }
  var timeline = document.getElementById('timeline');
  var axisTrack = el('div', 'track axis');
  add(timeline, add(el('div', 'row axis-row'), el('div', 'label', 'time from start'), axisTrack));
  var bandTrack = el('div', 'track');
  add(timeline, add(el('div', 'row'), el('div', 'label', 'stages'), bandTrack));
  var bands = data.bands.map(function (b) {
    var short = b.stage.replace(/^(team|ralph)-/, '');
    var extra = (b.loop ? ' · fix loop ' + b.loop : '') + (data.run.mode === 'ralph' ? ' · iteration ' + b.iteration : '');
    var n = el('div', 'band stage-' + b.stage);
    n.style.left = pct(b.start); n.style.width = width(b.start, b.end);
    n.dataset.loop = String(b.loop); n.dataset.stage = b.stage;
    bandTrack.appendChild(n);
    n.title = b.stage + extra;
    return { node: n, labels: [b.stage + extra, short + extra, short] };
  });
  var lanes = [], fitted = bands.slice();
  data.attempts.forEach(function (a) { if (a.lane && lanes.indexOf(a.lane) < 0) lanes.push(a.lane); });
  lanes.sort(function (x, y) { return x.localeCompare(y, undefined, { numeric: true }); });
  function named(a) { return a.task + (a.title ? ' — ' + a.title : ''); }
  function bar(a) {
    var marks = (a.retryOf ? '↻ ' : '') + (a.killed ? '✕ ' : '') + (a.adopted ? '⟲ ' : '') + (a.stalled ? '‖ ' : '');
    var n = el('div', 'bar stage-' + a.stage + ' outcome-' + a.status + (a.verdictFailed ? ' verdict-fail' : ''));
    var id = marks + a.task + ' · a' + a.attempt;
    fitted.push({ node: n, labels: a.title ? [id + ' — ' + a.title, id, marks + a.task] : [id, marks + a.task], ellipsis: !!a.title });
    var end = a.end === undefined || a.end === null ? data.end : a.end;
    n.style.left = pct(a.start); n.style.width = width(a.start, end);
    n.title = named(a) + ' · attempt ' + a.attempt + ' · ' + a.stage + ' · ' + a.status + (a.verdict ? ' · verdict ' + a.verdict.verdict : '');
    n.tabIndex = 0; n.setAttribute('role', 'button');
    n.dataset.attempt = a.id;
    n.addEventListener('click', function () { show(a, n); });
    n.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') show(a, n); });
    return n;
  }
  lanes.forEach(function (lane) {
    var track = el('div', 'track');
    var row = add(el('div', 'row lane'), el('div', 'label', lane), track);
    row.dataset.lane = lane;
    data.attempts.filter(function (a) { return a.lane === lane; }).forEach(function (a) { track.appendChild(bar(a)); });
    timeline.appendChild(row);
  });
  if (data.markers.length) {
    var markTrack = el('div', 'track');
    add(timeline, add(el('div', 'row marker-row'), el('div', 'label', 'restarts, cancels'), markTrack));
    data.markers.forEach(function (m) {
      var line = el('div', 'marker marker-' + m.kind); line.style.left = 'calc(120px + (100% - 120px) * ' + frac(m.at) + ')'; line.title = m.label;
      timeline.appendChild(line);
      // A label in the right half reads leftwards from its line: a cancel at the end stays in the card.
      var tag = el('div', 'marker-label marker-' + m.kind + (frac(m.at) > 0.5 ? ' marker-label-left' : ''), m.kind); tag.style.left = pct(m.at); tag.title = m.label;
      tag.dataset.kind = m.kind;
      markTrack.appendChild(tag);
    });
  }
  if (!data.attempts.length) timeline.appendChild(el('p', 'empty', 'no attempt yet'));
  var idle = data.attempts.filter(function (a) { return !a.lane; });
  if (idle.length) {
    var list = add(el('p', 'not-started'), el('span', '', 'worker never started: '));
    idle.forEach(function (a) {
      var b = el('button', 'idle', named(a) + ' · a' + a.attempt + ' (' + a.status + ')'); b.dataset.attempt = a.id;
      b.addEventListener('click', function () { show(a, b); });
      list.appendChild(b);
    });
    timeline.parentNode.insertBefore(list, timeline.nextSibling);
  }
  function layout() { drawAxis(axisTrack); fitted.forEach(function (b) { fit(b.node, b.labels, b.ellipsis); }); }
  layout();
  window.addEventListener('resize', layout);
`;
