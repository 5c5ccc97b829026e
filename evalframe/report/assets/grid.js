/* evalframe's per-query grid: a virtualized table of one node's queries (only the visible rows in the DOM), its
 * controls (measure, show, each slice, text), the count, and the drill-down of a query built when it is opened.
 * Plain DOM, no library, no network: the data comes only from a *source* (LocalSource over the page's inline payload,
 * or the viewer's RemoteSource). Every text of the user's is inserted with textContent or as an attribute value
 * (h()), never as HTML. */
(function () {
  'use strict';

  /* ------------------------------------------------------------------------------------------------- DOM helper */
  // h('td', {class: 'num', title: t}, 'text', child, [more]): an element; strings become text nodes, attribute values
  // are set with setAttribute (so no user text is ever parsed as HTML); a function value is an event listener.
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        var value = attrs[key];
        if (value === null || value === undefined || value === false) return;
        if (typeof value === 'function') el.addEventListener(key.replace(/^on/, ''), value);
        else el.setAttribute(key, value === true ? '' : String(value));
      });
    }
    for (var k = 2; k < arguments.length; k++) add(el, arguments[k]);
    return el;
  }
  function append(el) {
    for (var k = 1; k < arguments.length; k++) add(el, arguments[k]);
    return el;
  }
  function add(el, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { add(el, c); }); return; }
    el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }

  /* ------------------------------------------------------------------------------------------------- numbers */
  // Python's f'{x:.4f}' (what the text reports print): toFixed rounds an exact tie up, Python to even. A double with
  // an exact tie at 4 decimals is an odd multiple of 1/32; those are rounded to even here.
  function fixed(x) {
    if (x === null || x === undefined || x !== x) return '';
    var negative = x < 0 || Object.is(x, -0), a = Math.abs(x), t = a * 1e4, text;
    if (t - Math.floor(t) === 0.5 && Number.isInteger(a * 32)) {
      var n = Math.floor(t); if (n % 2) n += 1;
      text = (n / 1e4).toFixed(4);
    } else text = a.toFixed(4);
    return (negative ? '-' : '') + text;
  }
  // f'{x:+.4f}': the sign always shown.
  function signed(x) {
    var text = fixed(x);
    return text === '' || text.charAt(0) === '-' ? text : '+' + text;
  }
  function count(n) { return Number(n).toLocaleString('en-US'); }
  var ARROWS = {higher: '\u2191', lower: '\u2193'};

  /* ------------------------------------------------------------------------------------------------- the view */
  function defaultView(info) {
    return {measure: info.order_metric || '', sort: '', descending: false, show: '', slices: {}, text: ''};
  }
  function viewKey(view) {
    var slices = Object.keys(view.slices || {}).sort().map(function (k) { return [k, view.slices[k]]; });
    return JSON.stringify([view.measure || '', view.sort || '', !!view.descending, view.show || '', slices, view.text || '']);
  }

  /* ------------------------------------------------------------------------------------------------- LocalSource */
  // The grid over the page's payload: gridPayload is the GRID PAYLOAD (its node-th grid, or one grid object itself),
  // detail a Promise of the DETAIL PAYLOAD or a function returning one (called on the first drill-down).
  function LocalSource(gridPayload, detail, node) {
    var grids = gridPayload.grids || [gridPayload];
    var position = typeof node === 'string' ? grids.map(function (g) { return g.node; }).indexOf(node) : (node || 0);
    var grid = grids[position];
    var summary = gridPayload.summary || {};
    var about = (summary.nodes || [])[position] || {};
    var n = grid.n;
    var names = summary.names || [];
    var measures = (about.measures || Object.keys(grid.values).map(function (m) { return {metric: m}; }))
      .filter(function (m) { return grid.values[m.metric] !== undefined; })
      .map(function (m) { return {metric: m.metric, direction: m.direction || '', description: m.description || ''}; });
    var runs = names.length || (measures.length ? grid.values[measures[0].metric].length : 0);
    this.n = n; this.runs = runs; this.grid = grid;
    this.values = {};  // measure -> Float64Array(runs * n), run r's value of row i at r * n + i; NaN: not scored
    var self = this;
    measures.forEach(function (m) {
      var columns = grid.values[m.metric], array = new Float64Array(runs * n);
      for (var r = 0; r < runs; r++) {
        var column = columns[r];
        for (var i = 0; i < n; i++) { var v = column[i]; array[r * n + i] = v === null ? NaN : v; }
      }
      self.values[m.metric] = array;
    });
    this.signs = grid.signs || {};
    this.slices = grid.slices || [];
    this.info = {
      names: names, node: grid.node, answer_node: !!about.answer_node, measures: measures,
      slice_keys: about.slice_keys || [], order_metric: about.order_metric || (measures[0] || {}).metric || '', total: n,
      slice_labels: this.slices.map(function (labels) {
        var seen = {}; labels.forEach(function (label) { seen[label] = true; });
        return Object.keys(seen).sort();
      })
    };
    this._detail = detail;
    this._cache = null;
  }
  LocalSource.prototype._lower = function () {
    if (!this._query) {
      this._query = this.grid.query.map(function (q) { return q.toLowerCase(); });
      this._id = this.grid.id.map(function (q) { return q.toLowerCase(); });
    }
  };
  // gain of measure m, row i, run r >= 1: sign * (v[r] - v[0]) (NaN when either is not scored)
  LocalSource.prototype._gain = function (m, i, r) {
    return (this.signs[m] || 0) * (this.values[m][r * this.n + i] - this.values[m][i]);
  };
  // A view this grid cannot show is refused (as the server refuses it), naming what was wrong.
  function refused(what, got, valid) {
    return new Error(what + ' must be one of ' + JSON.stringify(valid.slice(0, 12)) + (valid.length > 12 ? ' ...' : '')
      + '; got ' + JSON.stringify(got));
  }
  LocalSource.prototype._check = function (view) {
    var measures = this.info.measures.map(function (m) { return m.metric; }), keys = this.info.slice_keys;
    if (view.measure && measures.indexOf(view.measure) < 0) throw refused('measure', view.measure, measures);
    if (['', 'changed', 'worse', 'better'].indexOf(view.show || '') < 0) throw refused('show', view.show, ['changed', 'worse', 'better']);
    Object.keys(view.slices || {}).forEach(function (key) { if (keys.indexOf(key) < 0) throw refused('slice', key, keys); });
    if (view.sort && view.sort !== 'rank' && view.sort !== 'query' && !this._key(view.sort)) {
      throw refused('sort', view.sort, this.sortKeys());
    }
  };
  // Every sort key of this grid (the server's Pager.sort_keys).
  LocalSource.prototype.sortKeys = function () {
    var keys = ['rank', 'query'], runs = this.runs;
    this.info.slice_keys.forEach(function (_, k) { keys.push('slice:' + k); });
    this.info.measures.forEach(function (m) {
      for (var r = 0; r < runs; r++) keys.push('value:' + m.metric + ':' + r);
      for (r = 1; r < runs; r++) keys.push('delta:' + m.metric + ':' + r);
      keys.push('gain:' + m.metric);
    });
    return keys;
  };
  LocalSource.prototype._keep = function (view) {
    var n = this.n, runs = this.runs, self = this, keep = new Uint8Array(n).fill(1), i, r;
    var text = (view.text || '').toLowerCase();
    if (text) {
      this._lower();
      for (i = 0; i < n; i++) if (this._query[i].indexOf(text) < 0 && this._id[i].indexOf(text) < 0) keep[i] = 0;
    }
    Object.keys(view.slices || {}).forEach(function (key) {
      var label = view.slices[key], k = self.info.slice_keys.indexOf(key);
      if (label === null || label === undefined) return;  // '' is a label: the rows that have none
      var labels = self.slices[k];
      for (var j = 0; j < n; j++) if (!labels || labels[j] !== label) keep[j] = 0;
    });
    var measure = view.measure || '';
    if (measure && this.values[measure]) {
      var v = this.values[measure];
      for (i = 0; i < n; i++) {
        if (!keep[i]) continue;
        var scored = false;
        for (r = 0; r < runs; r++) if (v[r * n + i] === v[r * n + i]) { scored = true; break; }
        if (!scored) keep[i] = 0;
      }
    }
    if (view.show) {  // per measure and later run, over the typed columns: some gain < 0 (worse), > 0 (better)
      var over = measure && this.values[measure] ? [measure] : Object.keys(this.values);
      var worse = new Uint8Array(n), better = new Uint8Array(n), want = view.show;
      over.forEach(function (m) {
        var v = self.values[m], sign = self.signs[m] || 0;
        if (!sign) return;  // a count: no gain is ever below or above 0
        for (var run = 1; run < runs; run++) {
          var base = run * n;
          for (var j = 0; j < n; j++) {
            var g = sign * (v[base + j] - v[j]);
            if (g < 0) worse[j] = 1; else if (g > 0) better[j] = 1;
          }
        }
      });
      for (i = 0; i < n; i++) {
        if (keep[i] && !(want === 'worse' ? worse[i] : want === 'better' ? better[i] : worse[i] || better[i])) keep[i] = 0;
      }
    }
    return keep;
  };
  // the sort key of every row: {numbers: Float64Array} or {strings: [str]} (NaN / '' sort last)
  LocalSource.prototype._key = function (sort) {
    var n = this.n, runs = this.runs, parts = sort.split(':'), key = new Float64Array(n), i, r;
    var index = /^[0-9]+$/.test(parts[parts.length - 1]) ? Number(parts[parts.length - 1]) : -1;  // ASCII digits only
    if (sort === 'query') { this._lower(); return {strings: this._query}; }
    if (parts[0] === 'slice') return parts.length === 2 && index >= 0 && index < this.slices.length ? {strings: this.slices[index]} : null;
    var m = parts.slice(1, parts[0] === 'gain' ? undefined : -1).join(':'), v = this.values[m];
    if (!v || !Object.prototype.hasOwnProperty.call(this.values, m)) return null;
    if (parts[0] === 'value' || parts[0] === 'delta') {
      r = index;
      if (r < (parts[0] === 'delta' ? 1 : 0) || r >= runs) return null;
      for (i = 0; i < n; i++) key[i] = parts[0] === 'value' ? v[r * n + i] : v[r * n + i] - v[i];
      return {numbers: key};
    }
    if (parts[0] === 'gain') {  // the smallest gain over the later runs (NaN gains left out; NaN when all are)
      for (i = 0; i < n; i++) {
        var least = NaN;
        for (r = 1; r < runs; r++) { var g = this._gain(m, i, r); if (g === g && !(g >= least)) least = g; }
        key[i] = least;
      }
      return {numbers: key};
    }
    return null;
  };
  // Every row in the order of a sort key (NaN / '' last either way, ties in the default order), kept per key: a
  // filter change then only walks it.
  LocalSource.prototype._permutation = function (sort, descending) {
    var name = JSON.stringify([sort, descending]), n = this.n, i;
    this._sorted = this._sorted || {};
    if (this._sorted[name]) return this._sorted[name];
    var sortKey = sort && sort !== 'rank' ? this._key(sort) : null, rows = [], missing = [];
    if (sortKey && sortKey.numbers) {
      var numbers = sortKey.numbers;
      for (i = 0; i < n; i++) (numbers[i] === numbers[i] ? rows : missing).push(i);
      rows.sort(descending ? function (a, b) { return numbers[b] - numbers[a] || a - b; }
        : function (a, b) { return numbers[a] - numbers[b] || a - b; });
    } else if (sortKey && sortKey.strings) {
      var strings = sortKey.strings;
      for (i = 0; i < n; i++) (strings[i] ? rows : missing).push(i);
      rows.sort(function (a, b) {
        var x = strings[a], y = strings[b], c = x < y ? -1 : x > y ? 1 : 0;
        return (descending ? -c : c) || a - b;
      });
    } else {
      for (i = 0; i < n; i++) rows.push(i);
      if (descending) rows.reverse();  // '' is 'rank', the default order: descending reverses it (as the server)
    }
    var order = Int32Array.from(missing.length ? rows.concat(missing) : rows);
    this._sorted[name] = order;
    return order;
  };
  LocalSource.prototype._order = function (view) {
    var key = viewKey(view);
    if (this._cache && this._cache.key === key) return this._cache.order;
    var keep = this._keep(view), all = this._permutation(view.sort || '', !!view.descending), order = [];
    for (var k = 0; k < all.length; k++) if (keep[all[k]]) order.push(all[k]);
    this._cache = {key: key, order: order};
    return order;
  };
  LocalSource.prototype.row = function (i) {
    var n = this.n, runs = this.runs, values = {}, self = this;
    this.info.measures.forEach(function (m) {
      var v = self.values[m.metric], list = [];
      for (var r = 0; r < runs; r++) { var x = v[r * n + i]; list.push(x === x ? x : null); }
      values[m.metric] = list;
    });
    return {i: i, id: this.grid.id[i], query: this.grid.query[i],
            slices: this.slices.map(function (labels) { return labels[i]; }), values: values};
  };
  LocalSource.prototype.page = function (view, offset, limit) {
    try { this._check(view); } catch (error) { return Promise.reject(error); }
    var order = this._order(view), rows = [];
    for (var k = offset; k < Math.min(order.length, offset + limit); k++) rows.push(this.row(order[k]));
    return Promise.resolve({total: order.length, rows: rows});
  };
  LocalSource.prototype.detail = function (i) {
    if (typeof this._detail === 'function') this._detail = this._detail();
    var grid = this.grid, names = this.info.names;
    return Promise.resolve(this._detail).then(function (payload) {
      if (!payload) return null;
      return detailOf(payload, grid.detail ? grid.detail[i] : i, names);
    });
  };

  // One query of the DETAIL PAYLOAD (columns, strings interned) as the DETAIL the drill-down draws.
  function detailOf(d, row, names) {
    var S = d.strings;
    function s(k) { return k === null || k === undefined || k < 0 ? null : S[k]; }
    function correct(c) { return c === null || c === undefined ? null : !!c; }
    function marks(columns, k) {
      var out = {};
      Object.keys(columns || {}).forEach(function (col) { var v = columns[col][k]; if (v !== null && v !== undefined) out[col] = v; });
      return out;
    }
    function range(part) { var list = []; for (var k = part.offsets[row]; k < part.offsets[row + 1]; k++) list.push(k); return list; }
    var meta = {};
    (d.meta ? d.meta.keys : []).forEach(function (key, j) { var v = s(d.meta.values[j][row]); if (v !== null) meta[key] = v; });
    return {
      row: row, id: s(d.id[row]), query: s(d.query[row]) || '',
      gold_answers: range(d.gold_answers).map(function (k) { return s(d.gold_answers.text[k]); }),
      // the page's own: each gold answer's whole length, when the page holds only its start
      gold_answer_lengths: d.gold_answers.length ? range(d.gold_answers).map(function (k) { return d.gold_answers.length[k]; }) : null,
      gold_documents: range(d.gold_documents).map(function (k) {
        var g = d.gold_documents; return {id: s(g.id[k]), text: s(g.text[k]), length: g.length[k]};
      }),
      meta: meta,
      // the page's own: past its size the page holds no run's answers or passages (the gold and the meta it does)
      runs_left_out: !!d.runs_left_out,
      runs: d.runs.map(function (run, r) {
        var a = run.answers, docs = run.documents;
        return {
          name: (d.names || names)[r],
          answers: a ? range(a).map(function (k) {
            var ids = a.document_ids, list = [];
            if (ids) for (var j = ids.offsets[k]; j < ids.offsets[k + 1]; j++) list.push(s(ids.id[j]));
            return {rank: a.rank[k], text: s(a.text[k]) || '', length: a.length[k], correct: correct(a.correct[k]),
                    document_ids: list, marks: marks(a.marks, k)};
          }) : [],
          documents: docs ? range(docs).map(function (k) {
            return {rank: docs.rank[k], id: s(docs.id[k]), text: s(docs.text[k]), length: docs.length[k],
                    correct: correct(docs.correct[k]), marks: marks(docs.marks, k)};
          }) : []
        };
      })
    };
  }

  /* ------------------------------------------------------------------------------------------------- drill-down */
  var PREVIEW = 160;
  function SERVE() { return h('code', null, 'evalframe serve'); }  // the viewer's command, as code
  // A text cut with an expander: a short preview and a "more" toggle; when the payload cut it, what it holds in all.
  function clip(text, length) {
    length = length === null || length === undefined ? (text || '').length : length;
    if (text === null || text === undefined || (text === '' && length > 0)) {
      return h('span', {class: 'ef-muted ef-left-out'},
        length > 0 ? ['text not in this page (' + count(length) + ' characters); ', SERVE(), ' shows it']
          : 'no text');
    }
    var cut = length > text.length;
    if (text.length <= PREVIEW && !cut) return h('span', {class: 'ef-text'}, text);
    var shown = h('span', {class: 'ef-text'}, text.length > PREVIEW ? text.slice(0, PREVIEW) + '\u2026' : text);
    var note = cut ? h('span', {class: 'ef-cut ef-muted', hidden: true},
      ' cut: ' + count(length) + ' characters in all; ', SERVE(), ' shows all') : null;
    var open = false;
    var button = h('button', {type: 'button', class: 'ef-more', 'aria-expanded': 'false', onclick: function () {
      open = !open;
      shown.textContent = open || text.length <= PREVIEW ? text : text.slice(0, PREVIEW) + '\u2026';
      button.textContent = open ? 'less' : 'more';
      button.setAttribute('aria-expanded', open ? 'true' : 'false');
      if (note) note.hidden = !open;
    }}, 'more');
    return h('span', {class: 'ef-clip'}, shown, ' ', button, note);
  }
  function check(correct) {
    return correct ? h('span', {class: 'ef-ok', title: 'judged correct'}, '\u2713 ') : null;
  }
  function markList(marks) {
    var keys = Object.keys(marks || {});
    if (!keys.length) return null;
    return h('div', {class: 'ef-marks'}, keys.map(function (key) {
      var v = marks[key];
      return h('span', {class: 'ef-mark' + (v > 0 ? ' on' : ''), title: key}, key + ' ' + (+v.toPrecision(6)));
    }));
  }
  // The drill-down of one query: its question, gold, every run's answers and passages, every measure, its meta.
  function renderDetail(detail, info, row) {
    var names = info.names || [], panel = h('div', {class: 'ef-drill'});
    if (!detail) {  // the page left the drill-down's texts out (too large): the row's values alone
      detail = {id: row.id, query: row.query, gold_answers: [], gold_documents: [], meta: {}, runs: []};
      append(panel, h('p', {class: 'ef-muted ef-left-out'}, info.detail_note ||
        ['The gold, the answers and the passages of the queries are not in this page; ', SERVE(), ' shows them.']));
    }
    append(panel, h('h4', {class: 'ef-question'}, detail.query || row.query || ''),
      h('p', {class: 'ef-muted ef-id'}, 'id ', h('code', null, detail.id === null ? row.id : detail.id)));
    var gold = h('div', {class: 'ef-gold'});
    if (detail.gold_answers.length) {
      append(gold, h('b', null, 'gold answers'), h('ul', {class: 'ef-gold-answers'},
        detail.gold_answers.map(function (text, j) {
          return h('li', null, clip(text, detail.gold_answer_lengths ? detail.gold_answer_lengths[j] : null));
        })));
    }
    if (detail.gold_documents.length) {
      append(gold, h('b', null, 'gold documents'), h('ul', {class: 'ef-gold-documents'},
        detail.gold_documents.map(function (doc) {
          return h('li', null, h('code', {class: 'ef-doc-id'}, doc.id), ' ', doc.text === null && !doc.length ? null : clip(doc.text, doc.length));
        })));
    }
    if (!detail.gold_answers.length && !detail.gold_documents.length && detail.runs.length && !detail.runs_left_out) append(gold, h('p', {class: 'ef-muted'}, 'no gold'));
    append(panel, gold);
    // every measure of the query, per run, and each later run's delta
    var head = h('tr', null, h('th', null, 'measure'), names.map(function (name) { return h('th', null, name); }),
      names.slice(1).map(function (name) { return h('th', null, '\u0394 ', h('bdi', null, name), ' \u2212 ', h('bdi', null, names[0])); }));
    var body = (info.measures || []).map(function (m) {
      var values = (row.values || {})[m.metric] || [];
      return h('tr', {'data-measure': m.metric}, h('td', {title: m.description || null}, m.metric + ' ' + (ARROWS[m.direction] || '')),
        names.map(function (_, r) { return h('td', {class: 'num', title: values[r] === null || values[r] === undefined ? null : String(values[r])}, fixed(values[r])); }),
        names.slice(1).map(function (_, r) {
          var d = values[r + 1] === null || values[0] === null || values[r + 1] === undefined ? NaN : values[r + 1] - values[0];
          var sign = m.direction === 'higher' ? 1 : m.direction === 'lower' ? -1 : 0, g = sign * d;
          return h('td', {class: 'num' + (g > 0 ? ' better' : g < 0 ? ' worse' : '')}, signed(d));
        }));
    });
    append(panel, h('table', {class: 'ef-measures'}, h('thead', null, head), h('tbody', null, body)));
    var runs = h('div', {class: 'ef-runs'});
    if (detail.runs_left_out) {
      append(panel, h('p', {class: 'ef-muted ef-left-out'},
        'The runs\u2019 answers and passages are not in this page (it is too large for them); ', SERVE(), ' shows them.'));
    }
    (detail.runs_left_out ? [] : detail.runs).forEach(function (run) {
      var box = h('div', {class: 'ef-run', 'data-run': run.name}, h('b', {class: 'ef-run-name'}, run.name));
      if (run.answers.length) {
        append(box, h('div', {class: 'ef-muted'}, 'answers'), h('ol', {class: 'ef-answers'}, run.answers.map(function (a) {
          return h('li', {value: typeof a.rank === 'number' ? a.rank : null, class: a.correct ? 'ef-correct' : null},
            check(a.correct), clip(a.text, a.length),
            a.document_ids.length ? h('div', {class: 'ef-muted'}, 'from ', a.document_ids.join(', ')) : null, markList(a.marks));
        })));
      }
      if (run.documents.length) {
        append(box, h('div', {class: 'ef-muted'}, 'retrieved passages'), h('ol', {class: 'ef-documents'}, run.documents.map(function (doc) {
          return h('li', {value: typeof doc.rank === 'number' ? doc.rank : null, class: doc.correct ? 'ef-correct' : null},
            check(doc.correct), h('code', {class: 'ef-doc-id'}, doc.id), ' ', clip(doc.text, doc.length), markList(doc.marks));
        })));
      }
      if (!run.answers.length && !run.documents.length) append(box, h('p', {class: 'ef-muted'}, 'no rows'));
      append(runs, box);
    });
    append(panel, runs);
    var keys = Object.keys(detail.meta || {});
    if (keys.length) {
      append(panel, h('dl', {class: 'ef-meta'}, keys.map(function (key) {
        return [h('dt', null, key), h('dd', null, clip(detail.meta[key], null))];
      })));
    }
    return panel;
  }

  /* ------------------------------------------------------------------------------------------------- Grid */
  var OVERSCAN = 10, BLOCK = 200;
  function Grid(container, source, options) {
    options = options || {};
    this.container = container; this.source = source; this.info = source.info; this.onView = options.onView || null;
    this.rowHeight = options.rowHeight || 30;
    this.view = Object.assign(defaultView(this.info), options.view || {});
    this.total = 0; this.block = null; this.active = -1; this.opened = null; this._token = 0;
    this.ready = Promise.resolve();
    this._build();
    this.refresh();
  }
  Grid.prototype._columns = function () {
    var info = this.info, names = info.names, view = this.view, columns = [];
    columns.push({key: 'rank', label: '#', cls: 'ef-rank'});
    columns.push({key: 'query', label: 'query', cls: 'ef-query'});
    info.slice_keys.forEach(function (key, k) { columns.push({key: 'slice:' + k, label: key, cls: 'ef-slice', slice: k}); });
    info.measures.filter(function (m) { return !view.measure || m.metric === view.measure; }).forEach(function (m) {
      names.forEach(function (name, r) {
        columns.push({key: 'value:' + m.metric + ':' + r, label: m.metric + ' ' + (ARROWS[m.direction] || ''), sub: [name],
                      cls: 'ef-num', measure: m, run: r});
      });
      names.slice(1).forEach(function (name, r) {
        columns.push({key: 'delta:' + m.metric + ':' + (r + 1), label: '\u0394 ' + m.metric, sub: [h('bdi', null, name), ' \u2212 ', h('bdi', null, names[0])],
                      cls: 'ef-num ef-delta', measure: m, run: r + 1, delta: true});
      });
    });
    return columns;
  };
  Grid.prototype._build = function () {
    var self = this, info = this.info;
    this.container.textContent = '';
    var measure = h('select', {class: 'ef-measure', 'aria-label': 'measure', onchange: function () {
      self._change({measure: measure.value, sort: measure.value ? 'gain:' + measure.value : '', descending: false});
    }}, h('option', {value: ''}, 'all measures'), info.measures.map(function (m) {
      return h('option', {value: m.metric}, m.metric + ' ' + (ARROWS[m.direction] || ''));
    }));
    var show = h('select', {class: 'ef-show', 'aria-label': 'show', onchange: function () { self._change({show: show.value}); }},
      h('option', {value: ''}, 'all queries'), h('option', {value: 'changed'}, 'changed'),
      h('option', {value: 'worse'}, 'regressions'), h('option', {value: 'better'}, 'improvements'));
    var slices = info.slice_keys.map(function (key, k) {
      var labels = info.slice_labels[k] || [];
      var select = h('select', {class: 'ef-slice', 'data-key': key, 'aria-label': key, onchange: function () {
        // the options: all, then each label (a query with no label of this key is the choice "(none)"); the
        // chosen option's position says which, so that no label can pass for another (or for "all")
        var chosen = Object.assign({}, self.view.slices), at = select.selectedIndex;
        if (at > 0) chosen[key] = labels[at - 1]; else delete chosen[key];
        self._change({slices: chosen});
      }}, h('option', {value: ''}, 'all'), labels.map(function (label) {
        return h('option', label === '' ? {value: '(none)', class: 'ef-none'} : {value: label}, label === '' ? '(none)' : label);
      }));
      return select;
    });
    var text = h('input', {class: 'ef-search', type: 'search', placeholder: 'query or id', 'aria-label': 'text', oninput: function () {
      self._change({text: text.value});
    }});
    this.controls = {measure: measure, show: show, slices: slices, text: text};
    this.countLine = h('span', {class: 'ef-count', 'aria-live': 'polite'});
    this.sortLine = h('span', {class: 'ef-sorted ef-muted'});
    this.colgroup = h('colgroup');
    this.headRow = h('tr');
    this.body = h('tbody');
    this.table = h('table', {class: 'ef-table', role: 'grid'}, this.colgroup, h('thead', null, this.headRow), this.body);
    this.scroller = h('div', {class: 'ef-scroll', tabindex: '0', role: 'region', 'aria-label': 'queries of ' + info.node,
      onscroll: function () { self._scheduleDraw(); }, onkeydown: function (event) { self._key(event); }}, this.table);
    this.body.addEventListener('click', function (event) {
      var tr = event.target.closest ? event.target.closest('tr.ef-row') : null;
      if (tr) self.open(Number(tr.getAttribute('data-position')));
    });
    this.panel = h('div', {class: 'ef-detail', hidden: true, 'aria-live': 'polite'});
    append(this.container, h('div', {class: 'ef-controls'},
      h('label', null, 'measure ', measure), h('label', null, 'show ', show),
      slices.map(function (select, k) { return h('label', null, info.slice_keys[k] + ' ', select); }),
      h('label', null, 'text ', text)),
    h('p', {class: 'ef-status'}, this.countLine, ' ', this.sortLine), this.scroller, this.panel);
  };
  Grid.prototype._syncControls = function () {
    var view = this.view, c = this.controls, self = this;
    c.measure.value = view.measure || '';
    c.show.value = view.show || '';
    c.slices.forEach(function (select, k) {
      var label = (view.slices || {})[self.info.slice_keys[k]];
      select.selectedIndex = label === undefined || label === null ? 0 : (self.info.slice_labels[k] || []).indexOf(label) + 1;
    });
    if (c.text.value !== (view.text || '')) c.text.value = view.text || '';
  };
  Grid.prototype._head = function () {
    var self = this, view = this.view;
    this.columns = this._columns();
    this.colgroup.textContent = ''; this.headRow.textContent = '';
    // the query column takes the width left, never under 26rem: past that the table scrolls sideways
    var slices = this.info.slice_keys.length, numbers = this.columns.length - 2 - slices;
    this.table.style.minWidth = 'calc(30rem + ' + slices * 9 + 'rem + ' + numbers * 7.5 + 'rem)';
    this.columns.forEach(function (col) {
      append(self.colgroup, h('col', {class: col.cls}));
      var sorted = (view.sort || 'rank') === col.key;
      var th = h('th', {class: col.cls, scope: 'col', 'data-key': col.key,
                        'aria-sort': sorted ? (view.descending ? 'descending' : 'ascending') : 'none'},
        h('button', {type: 'button', class: 'ef-sort', onclick: function () {
          var again = (self.view.sort || 'rank') === col.key;
          self._change({sort: col.key === 'rank' && again && self.view.descending ? '' : col.key,
                        descending: again ? !self.view.descending : false});
        }, title: col.label}, col.label, col.sub ? h('br') : null, col.sub ? h('span', {class: 'ef-muted'}, col.sub) : null));
      append(self.headRow, th);
    });
    var m = /^gain:(.*)$/.exec(view.sort || '');
    this.sortLine.textContent = m ? 'sorted by the worst change of ' + m[1] + ' first' + (view.descending ? ' (reversed)' : '')
      : !view.sort ? 'in the default order: the worst change of ' + this.info.order_metric + ' first'
        + (view.descending ? ' (reversed)' : '') : '';
  };
  Grid.prototype._change = function (change) {
    this.view = Object.assign({}, this.view, change);
    this.refresh();
    if (this.onView) this.onView(Object.assign({}, this.view));
  };
  Grid.prototype.setView = function (view) {
    this.view = Object.assign(defaultView(this.info), view || {});
    this.refresh();
  };
  Grid.prototype.getView = function () { return Object.assign({}, this.view); };
  // Redraw from the top with the current view (a filter or sort changed); .ready settles once the rows are drawn.
  Grid.prototype.refresh = function () {
    this._syncControls();
    this._head();
    this.block = null; this.active = -1;
    this.scroller.scrollTop = 0;
    this.ready = this._fetch(0);
    return this.ready;
  };
  Grid.prototype._fetch = function (first) {
    var self = this, token = ++this._token, start = Math.max(0, first - BLOCK / 2);
    var view = this.view;
    return Promise.resolve(this.source.page(view, start, BLOCK)).then(function (page) {
      if (token !== self._token) return;  // a later view or scroll asked since
      self.failed = null;
      self.countLine.classList.remove('ef-error');
      self.total = page.total;
      self.block = {start: start, rows: page.rows, key: viewKey(view)};
      self.countLine.textContent = count(page.total) + ' of ' + count(self.info.total) + ' queries shown';
      self.table.setAttribute('aria-rowcount', String(page.total + 1));
      self._draw();
    }, function (error) {  // a view the source refuses (a shared URL's bad sort or measure): its message, no rows
      if (token !== self._token) return;
      self.failed = 'This view cannot be shown: ' + (error && error.message ? error.message : String(error));
      self.total = 0;
      self.block = {start: 0, rows: [], key: viewKey(view)};
      self.countLine.textContent = self.failed;
      self.countLine.classList.add('ef-error');
      self.table.setAttribute('aria-rowcount', '1');
      self._draw();
    });
  };
  Grid.prototype._scheduleDraw = function () {
    var self = this;
    if (this._frame) return;
    this._frame = requestAnimationFrame(function () { self._frame = 0; self._draw(false); });
  };
  Grid.prototype._visible = function () {
    var height = this.scroller.clientHeight || 600, head = this.headRow.offsetHeight || 0;
    var first = Math.max(0, Math.floor((this.scroller.scrollTop) / this.rowHeight) - OVERSCAN);
    var last = Math.min(this.total, Math.ceil((this.scroller.scrollTop + height - head) / this.rowHeight) + OVERSCAN);
    return [first, Math.max(first, last)];
  };
  Grid.prototype._draw = function () {
    var range = this._visible(), first = range[0], last = range[1], block = this.block, self = this;
    if (!block) return;
    if (first < block.start || last > block.start + block.rows.length) { this._fetch(first); return; }
    var width = this.columns.length, rows = [];
    rows.push(h('tr', {class: 'ef-spacer', 'aria-hidden': 'true'}, h('td', {colspan: width, style: 'height:' + first * this.rowHeight + 'px'})));
    for (var p = first; p < last; p++) rows.push(this._row(block.rows[p - block.start], p));
    rows.push(h('tr', {class: 'ef-spacer', 'aria-hidden': 'true'},
      h('td', {colspan: width, style: 'height:' + Math.max(0, this.total - last) * this.rowHeight + 'px'})));
    this.body.textContent = '';
    rows.forEach(function (tr) { self.body.appendChild(tr); });
    if (this.total === 0) {
      this.body.textContent = '';
      append(this.body, h('tr', {class: 'ef-empty'}, h('td', {colspan: width, class: 'ef-muted'}, self.failed || 'no query matches this view')));
    }
  };
  Grid.prototype._row = function (row, position) {
    var cells = [], view = this.view, opened = this.opened;
    this.columns.forEach(function (col) {
      if (col.key === 'rank') cells.push(h('td', {class: 'ef-num ef-rank'}, String(row.i + 1)));
      else if (col.key === 'query') cells.push(h('td', {class: 'ef-query', title: row.query}, h('bdi', null, row.query)));
      else if (col.slice !== undefined) cells.push(h('td', {class: 'ef-slice', title: row.slices[col.slice]}, row.slices[col.slice]));
      else {
        var values = row.values[col.measure.metric] || [], v = values[col.run];
        if (!col.delta) cells.push(h('td', {class: 'ef-num', title: v === null || v === undefined ? null : String(v)}, fixed(v)));
        else {
          var d = v === null || v === undefined || values[0] === null ? NaN : v - values[0];
          var sign = col.measure.direction === 'higher' ? 1 : col.measure.direction === 'lower' ? -1 : 0, g = sign * d;
          cells.push(h('td', {class: 'ef-num ef-delta' + (g > 0 ? ' better' : g < 0 ? ' worse' : ''),
                             title: d === d ? String(d) : null}, signed(d)));
        }
      }
    });
    return h('tr', {class: 'ef-row' + (position === this.active ? ' ef-active' : '') + (opened === row.i ? ' ef-open' : ''),
                    'data-position': position, 'data-i': row.i, 'aria-rowindex': position + 2,
                    'aria-selected': position === this.active ? 'true' : 'false',
                    title: view.measure ? null : 'open to see every run\u2019s answers and passages'}, cells);
  };
  Grid.prototype._rowAt = function (position) {
    var block = this.block;
    if (!block || position < block.start || position >= block.start + block.rows.length) return null;
    return block.rows[position - block.start];
  };
  Grid.prototype._key = function (event) {
    var keys = {ArrowDown: 1, ArrowUp: -1, PageDown: 10, PageUp: -10, Home: -Infinity, End: Infinity};
    if (event.key === 'Enter' || event.key === ' ') {
      if (this.active >= 0) { event.preventDefault(); this.open(this.active); }
      return;
    }
    if (!(event.key in keys) || !this.total) return;
    event.preventDefault();
    var step = keys[event.key], position = Math.max(0, Math.min(this.total - 1, (this.active < 0 ? -1 : this.active) + step));
    if (step === -Infinity) position = 0;
    this.active = position;
    var top = position * this.rowHeight, head = this.headRow.offsetHeight || 0, height = this.scroller.clientHeight - head;
    if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
    else if (top + this.rowHeight > this.scroller.scrollTop + height) this.scroller.scrollTop = top + this.rowHeight - height;
    this._draw();
  };
  // Open the drill-down of the query at `position` in the current order (built now, from source.detail).
  Grid.prototype.open = function (position) {
    var row = this._rowAt(position), self = this;
    if (!row) return Promise.resolve();
    this.active = position;
    if (this.opened === row.i && !this.panel.hidden) {
      this.opened = null; this.panel.hidden = true; this._draw(); return Promise.resolve();
    }
    this.opened = row.i;
    this._draw();
    this.panel.hidden = false;
    this.panel.textContent = '';
    append(this.panel, h('p', {class: 'ef-muted'}, 'loading\u2026'));
    this.opening = Promise.resolve(this.source.detail(row.i)).then(function (detail) {
      if (self.opened !== row.i) return;
      self.panel.textContent = '';
      append(self.panel, h('button', {type: 'button', class: 'ef-close', onclick: function () {
        self.opened = null; self.panel.hidden = true; self._draw();
      }}, 'close'), renderDetail(detail, self.info, row));
    });
    return this.opening;
  };

  window.Evalframe = {Grid: Grid, LocalSource: LocalSource, renderDetail: renderDetail, h: h,
                      detailOf: detailOf, fixed: fixed, signed: signed};
})();
