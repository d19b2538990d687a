(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('site-data').textContent);
  data.scen.forEach(function (sc) {  // runs of one letter travel as the letter and a count
    sc[3] = sc[3].replace(/(\D)(\d+)/g, function (run, c, n) { return c.repeat(Number(n)); });
  });
  var FIELDS = ['impl', 'class', 'rule', 'area', 'verdict', 'q'];
  var BUCKET = {P: 'pass', L: 'leak', F: 'fail', S: 'fail', E: 'fail'};
  var SHOWN = 100;
  function field(name) { return document.getElementById('f-' + name); }
  function readHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    FIELDS.forEach(function (f) { field(f).value = params.get(f) || ''; });
  }
  function writeHash() {
    var params = new URLSearchParams();
    FIELDS.forEach(function (f) { if (field(f).value) { params.set(f, field(f).value); } });
    var hash = params.toString();
    history.replaceState(null, '', hash ? '#' + hash : location.pathname + location.search);
  }
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined) { node.textContent = text; }
    if (cls) { node.className = cls; }
    return node;
  }
  function link(href, text) { var a = el('a', text); a.href = href; return a; }
  function counted(n, kind) { return el('span', String(n), 'cnt k-' + kind + (n ? '' : ' zero')); }
  function apply() {
    var s = {};
    FIELDS.forEach(function (f) { s[f] = field(f).value; });
    var q = s.q.trim().toLowerCase();
    var group = s.rule ? data.groups.indexOf(s.rule) : -1;
    var area = s.area ? data.areas.indexOf(s.area) : -1;
    var cls = s['class'] ? data.classes.indexOf(s['class']) : -1;
    var impls = [];
    data.impls.forEach(function (impl, i) { if (!s.impl || impl.n === s.impl) { impls.push(i); } });
    var counts = impls.map(function () {
      return data.groups.map(function () { return {pass: 0, leak: 0, fail: 0}; });
    });
    var hits = impls.map(function () { return 0; });
    var matching = [];
    data.scen.forEach(function (sc) {
      if (area >= 0 && sc[1] !== area) { return; }
      if (cls >= 0 && sc[4].indexOf(cls) < 0) { return; }
      if (group >= 0 && sc[2].indexOf(group) < 0) { return; }
      if (q && sc[0].toLowerCase().indexOf(q) < 0) { return; }
      var any = false;
      impls.forEach(function (i, k) {
        var bucket = BUCKET[sc[3].charAt(i)];
        if (s.verdict && bucket !== s.verdict) { return; }
        any = true;
        hits[k] += 1;
        if (bucket) { sc[2].forEach(function (g) { counts[k][g][bucket] += 1; }); }
      });
      if (any) { matching.push(sc); }
    });
    var columns = [];
    data.groups.forEach(function (g, i) { if (group < 0 || group === i) { columns.push(i); } });
    var head = document.querySelector('#grid thead tr');
    var first = el('th', 'implementation');
    first.scope = 'col';
    head.replaceChildren(first);
    columns.forEach(function (g) { var th = el('th', data.groups[g]); th.scope = 'col'; head.appendChild(th); });
    var body = document.querySelector('#grid tbody');
    body.replaceChildren();
    var rows = 0;
    impls.forEach(function (i, k) {
      if (s.verdict && !hits[k]) { return; }
      rows += 1;
      var tr = el('tr');
      var th = el('th');
      th.scope = 'row';
      th.appendChild(link(data.impls[i].h, data.impls[i].n));
      tr.appendChild(th);
      columns.forEach(function (g) {
        var c = counts[k][g];
        var td = el('td');
        td.setAttribute('aria-label', data.impls[i].n + ', ' + data.groups[g] + ': ' + c.pass +
          ' pass, ' + c.leak + ' leak, ' + c.fail + ' fail');
        if (!c.pass && !c.leak && !c.fail) { td.className = 'none'; td.textContent = '–'; }
        else {
          if (c.leak) { td.className = 'hot'; }
          td.appendChild(counted(c.pass, 'pass'));
          td.appendChild(counted(c.leak, 'leak'));
          td.appendChild(counted(c.fail, 'fail'));
        }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    document.getElementById('grid-count').textContent = rows + ' of ' + data.impls.length +
      ' implementations, ' + matching.length + ' of ' + data.scen.length + ' scenarios';
    var list = document.querySelector('#matches tbody');
    list.replaceChildren();
    matching.slice(0, SHOWN).forEach(function (sc) {
      var tr = el('tr');
      var td = el('td');
      td.appendChild(link('scenarios/' + encodeURIComponent(sc[0]) + '.html', sc[0]));
      tr.appendChild(td);
      tr.appendChild(el('td', data.areas[sc[1]]));
      var tally = {pass: 0, leak: 0, fail: 0};
      impls.forEach(function (i) { var b = BUCKET[sc[3].charAt(i)]; if (b) { tally[b] += 1; } });
      var cell = el('td');
      cell.appendChild(counted(tally.pass, 'pass'));
      cell.appendChild(counted(tally.leak, 'leak'));
      cell.appendChild(counted(tally.fail, 'fail'));
      tr.appendChild(cell);
      list.appendChild(tr);
    });
    document.getElementById('matches-count').textContent = matching.length > SHOWN
      ? 'the first ' + SHOWN + ' of ' + matching.length + ' matching scenarios (narrow the filter to see the rest)'
      : matching.length + ' matching scenarios';
  }
  FIELDS.forEach(function (f) {
    field(f).addEventListener('input', function () { writeHash(); apply(); });
  });
  document.getElementById('filters').addEventListener('submit', function (event) {
    event.preventDefault();
  });
  document.getElementById('f-reset').addEventListener('click', function () {
    FIELDS.forEach(function (f) { field(f).value = ''; });
    writeHash();
    apply();
  });
  window.addEventListener('hashchange', function () { readHash(); apply(); });
  readHash();
  apply();
  document.body.setAttribute('data-filter-ready', 'true');
})();
