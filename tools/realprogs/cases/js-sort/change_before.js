'use strict';
// rankResults returns the ten best results, best first, newest first among
// equals, by a partial selection: only the page is ever shown.
function better(a, b) {
  return a.score > b.score || (a.score === b.score && a.updated > b.updated);
}

function rankResults(results) {
  const top = [];
  for (const r of results) {
    if (top.length === 10 && !better(r, top[9])) continue;
    let i = Math.min(top.length, 9);
    if (top.length < 10) top.push(r);
    while (i > 0 && better(r, top[i - 1])) {
      top[i] = top[i - 1];
      i--;
    }
    top[i] = r;
  }
  return top;
}

module.exports = { rankResults };
