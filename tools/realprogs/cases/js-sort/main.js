// js-sort is a Node.js search backend's query loop: it tokenizes the query,
// looks candidates up in an inverted index, scores them, ranks them and
// renders the first page. The changed function lives in change.js (run.sh
// puts change_before.js or change_after.js there).
'use strict';
const { rankResults } = require('./change.js');

function arg(name, def) {
  const i = process.argv.indexOf('--' + name);
  return i >= 0 ? process.argv[i + 1] : def;
}

let seed = 777;
function rnd(n) {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed % n;
}

const words = [];
for (let i = 0; i < 400; i++) {
  let w = '';
  for (let j = 0; j < 3 + rnd(6); j++) w += String.fromCharCode(97 + rnd(26));
  words.push(w);
}

function buildIndex(docs) {
  const index = new Map();
  docs.forEach((d, id) => {
    for (const w of new Set(d.text.split(' '))) {
      let list = index.get(w);
      if (!list) index.set(w, (list = []));
      list.push(id);
    }
  });
  return index;
}

function tokenize(q) {
  return q.toLowerCase().split(/\s+/).filter((w) => w.length > 1);
}

function candidates(index, terms) {
  const seen = new Map();
  for (const t of terms) {
    for (const id of index.get(t) || []) seen.set(id, (seen.get(id) || 0) + 1);
  }
  return seen;
}

function scoreDoc(doc, hits, terms) {
  let s = hits * 2 + doc.popularity / 1000;
  for (const t of terms) {
    if (doc.title.includes(t)) s += 3;
    const at = doc.text.indexOf(t);
    if (at >= 0 && at < 60) s += 1;
    if (doc.text.lastIndexOf(t) > 150) s += 0.5;
  }
  return s;
}

function renderPage(results, docs) {
  let out = '[';
  for (let i = 0; i < Math.min(10, results.length); i++) {
    const d = docs[results[i].id];
    out += (i ? ',' : '') + '{"id":' + d.id + ',"title":"' + d.title + '","score":' + results[i].score.toFixed(2) + '}';
  }
  return out + ']';
}

function search(index, docs, q) {
  const terms = tokenize(q);
  const results = [];
  for (const [id, hits] of candidates(index, terms)) {
    results.push({ id, score: scoreDoc(docs[id], hits, terms), updated: docs[id].updated });
  }
  return renderPage(rankResults(results), docs);
}

function main() {
  const n = parseInt(arg('n', '2000'), 10);
  const docs = [];
  for (let i = 0; i < 8000; i++) {
    const text = Array.from({ length: 30 }, () => words[rnd(words.length)]).join(' ');
    docs.push({ id: i, title: text.slice(0, 40), text, popularity: rnd(100000), updated: 1733600000000 - rnd(1e9) });
  }
  const index = buildIndex(docs);
  const queries = Array.from({ length: 500 }, () => words[rnd(words.length)] + ' ' + words[rnd(words.length)]);
  let out = 0;
  for (let i = 0; i < n; i++) out += search(index, docs, queries[i % queries.length]).length;
  console.log('page bytes:', out);
}

main();
