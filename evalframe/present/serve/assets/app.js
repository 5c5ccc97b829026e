/* evalframe serve: the comparison's grid over the server's JSON API (RemoteSource), drawn by the grid component of
 * evalframe/report/assets/grid.js (window.Evalframe.Grid), and the grid's view kept in the page's URL, so that a view
 * can be shared and a reload shows it again. No library, no request outside the server; every user text is drawn by
 * grid.js with textContent. */
(function () {
  'use strict';

  // The view fields in a URL's query string: measure, sort, desc, show, text, slice.<key>, open (a row's drill-down).
  var FIELDS = ['measure', 'sort', 'desc', 'show', 'text', 'open'];

  function viewParams(view) {
    var params = [];
    if (view.measure !== undefined) params.push(['measure', view.measure || '']);
    if (view.sort) params.push(['sort', view.sort]);
    if (view.descending) params.push(['desc', '1']);
    if (view.show) params.push(['show', view.show]);
    if (view.text) params.push(['text', view.text]);
    Object.keys(view.slices || {}).sort().forEach(function (key) { params.push(['slice.' + key, view.slices[key]]); });
    return params;
  }

  function viewOf(search) {
    var params = new URLSearchParams(search), view = {slices: {}}, any = false;
    params.forEach(function (value, key) {
      if (key.indexOf('slice.') === 0) { view.slices[key.slice(6)] = value; any = true; }
    });
    if (params.has('measure')) { view.measure = params.get('measure'); any = true; }
    if (params.has('sort')) { view.sort = params.get('sort'); any = true; }
    if (params.has('desc')) { view.descending = params.get('desc') === '1'; any = true; }
    if (params.has('show')) { view.show = params.get('show'); any = true; }
    if (params.has('text')) { view.text = params.get('text'); any = true; }
    return any ? view : null;
  }

  function query(base, params) {
    var url = new URL(base, window.location.origin);
    params.forEach(function (pair) { url.searchParams.append(pair[0], pair[1]); });
    return url.pathname + url.search;
  }

  function fetchJSON(url) {
    return fetch(url, {credentials: 'same-origin', headers: {'Accept': 'application/json'}}).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error(body && body.error ? body.error : response.status + ' ' + response.statusText);
        return body;
      });
    });
  }

  // A source of the grid component (grid.js) over /api/grid/...: the same view fields, paged on the server.
  function RemoteSource(api, info) {
    this.api = api;  // "/api/grid?run=...&node=..."
    this.info = info;
  }
  RemoteSource.load = function (api) {
    return fetchJSON(query(api.replace('/api/grid?', '/api/grid/info?'), [])).then(function (info) {
      return new RemoteSource(api, info);
    });
  };
  RemoteSource.prototype.page = function (view, offset, limit) {
    var params = viewParams(view).concat([['offset', String(offset)], ['limit', String(limit)]]);
    return fetchJSON(query(this.api.replace('/api/grid?', '/api/grid/page?'), params));
  };
  RemoteSource.prototype.detail = function (i) {
    return fetchJSON(query(this.api.replace('/api/grid?', '/api/grid/detail?'), [['i', String(i)]]));
  };

  function keepInURL(view, opened) {
    var url = new URL(window.location.href);
    FIELDS.forEach(function (key) { url.searchParams.delete(key); });
    Array.from(url.searchParams.keys()).filter(function (key) { return key.indexOf('slice.') === 0; })
      .forEach(function (key) { url.searchParams.delete(key); });
    viewParams(view).forEach(function (pair) { url.searchParams.append(pair[0], pair[1]); });
    if (opened !== null && opened !== undefined) url.searchParams.set('open', String(opened));
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
  }

  function showError(host, message) {
    host.textContent = '';
    var p = document.createElement('p');
    p.className = 'sv-error';
    p.textContent = message;
    host.appendChild(p);
  }

  // An error beside the grid (a bad open=<row> of a URL): a note above it, the grid kept.
  function showNote(host, message) {
    var p = document.createElement('p');
    p.className = 'sv-error sv-open-error';
    p.setAttribute('role', 'alert');
    p.textContent = message;
    host.insertBefore(p, host.firstChild);
  }

  // The drill-down a URL names (open=<row>), drawn as the grid draws one, above the grid.
  function openFromURL(host, source, grid, row) {
    var E = window.Evalframe, total = source.info.total;
    if (!(row < total)) {  // a row the grid does not have: said without asking the server
      return Promise.reject(new Error('no query ' + row + ' in ' + source.info.node + ': the rows are ' +
                                      (total ? '0 to ' + (total - 1) : 'none') + '.'));
    }
    var rowURL = query(source.api.replace('/api/grid?', '/api/grid/row?'), [['i', String(row)]]);
    return Promise.all([source.detail(row), fetchJSON(rowURL)]).then(function (both) {
      var panel = document.createElement('div');
      panel.className = 'ef-detail sv-opened';
      panel.setAttribute('data-row', String(row));
      var close = document.createElement('button');
      close.type = 'button'; close.className = 'ef-close'; close.textContent = 'close';
      close.addEventListener('click', function () { panel.remove(); keepInURL(grid.getView(), null); });
      panel.appendChild(close);
      panel.appendChild(E.renderDetail(both[0], source.info, both[1]));
      host.insertBefore(panel, host.firstChild);
    });
  }

  function start() {
    var host = document.getElementById('sv-grid');
    if (!host) return;
    var E = window.Evalframe;
    if (!E || !E.Grid) { showError(host, 'the grid component (grid.js) did not load'); return; }
    var api = host.getAttribute('data-api');
    RemoteSource.load(api).then(function (source) {
      host.textContent = '';
      if (source.info.note) {
        var note = document.createElement('p');
        note.className = 'sv-note'; note.textContent = source.info.note;
        host.appendChild(note);
      }
      var box = document.createElement('div');
      host.appendChild(box);
      var opened = null;
      var initial = viewOf(window.location.search);
      var grid = new E.Grid(box, source, {view: initial || undefined, onView: function (view) {
        keepInURL(view, opened);
      }});
      // a drill-down opened in the grid is kept in the URL too (open=<row>)
      var open = grid.open;
      grid.open = function (position) {
        var done = open.call(grid, position);
        opened = grid.opened;
        keepInURL(grid.getView(), opened);
        return done;
      };
      window.evalframeGrid = grid;
      var row = new URLSearchParams(window.location.search).get('open');
      if (row !== null && /^[0-9]+$/.test(row)) {
        opened = Number(row);
        openFromURL(host, source, grid, opened).catch(function (error) {
          // the grid stays; the URL forgets the row it could not open
          opened = null;
          keepInURL(grid.getView(), null);
          showNote(host, 'open=' + row + ': ' + String(error.message || error));
        });
      }
    }).catch(function (error) { showError(host, String(error.message || error)); });
  }

  window.EvalframeServe = {RemoteSource: RemoteSource, viewOf: viewOf, viewParams: viewParams};
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
