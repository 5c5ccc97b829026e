/* The static comparative page: decode the inline payloads (base64 -> gzip -> JSON) and draw a Grid per node
 * (grid.js). The detail payload is decoded on the first drill-down. No network: the data is in the page. */
(function () {
  'use strict';
  function decode(id) {
    var el = document.getElementById(id);
    if (!el) return Promise.resolve(null);
    var text = atob(el.textContent.replace(/\s+/g, '')), bytes = new Uint8Array(text.length);
    for (var k = 0; k < text.length; k++) bytes[k] = text.charCodeAt(k);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text().then(JSON.parse);
  }
  var detail = null;
  function details() { if (!detail) detail = decode('evalframe-detail'); return detail; }
  var grids = [];
  window.evalframePage = {grids: grids, ready: decode('evalframe-grid').then(function (payload) {
    if (!payload) return grids;
    document.querySelectorAll('.evalframe-grid[data-grid]').forEach(function (el) {
      var position = Number(el.getAttribute('data-grid'));
      var mount = el.querySelector('.ef-mount');
      mount.textContent = '';
      grids[position] = new window.Evalframe.Grid(mount, new window.Evalframe.LocalSource(payload, details, position));
    });
    return Promise.all(grids.map(function (grid) { return grid.ready; }));
  }).then(function () {
    window.evalframePage.drawn = performance.now();  // the first rows of every grid drawn (ms since navigation)
    return grids;
  })};
  window.evalframePage.ready.catch(function (error) {
    document.querySelectorAll('.evalframe-grid .ef-mount').forEach(function (mount) {
      mount.textContent = 'The grid could not be drawn: ' + error + ' (a recent Chromium, Firefox or Safari is needed).';
    });
  });
})();
