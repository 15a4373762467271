// storefront.js: the web component of the release example (see ../README.md).
// It renders product listing pages and search results the way a
// server-side-rendered storefront does: build the catalogue, sort and filter
// it, format prices, escape HTML.
//
//   node storefront.js old|new listing|search [pages]
//
// The "new" version carries two known, injected changes:
//   - listing pages get slower: they also show the former price of items on
//     sale (one in ten), and formatPrice builds a new Intl.NumberFormat for
//     each of those instead of reusing one (a real and common mistake:
//     constructing a formatter loads locale data);
//   - search gets faster: matchItems folds each name (Unicode NFKD, lower
//     case) once per catalogue (searchIndex) instead of once per query and
//     item.
'use strict';

const [version, page] = process.argv.slice(2, 4);
if (!['old', 'new'].includes(version) || !['listing', 'search'].includes(page)) {
  console.error('usage: node storefront.js old|new listing|search [pages]');
  process.exit(2);
}
const pages = Number(process.argv[4] || 400);

const cachedFormat = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

function formatPrice(cents, former) {
  if (former) {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(cents / 100);
  }
  return cachedFormat.format(cents / 100);
}

function escapeHTML(s) {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

function buildCatalogue(seed) {
  const items = [];
  for (let i = 0; i < 120; i++) {
    const n = (seed * 7919 + i * 104729) % 100003;
    items.push({ id: n, name: `Item <${n}> "${(n % 97).toString(36)}" & co`, cents: 199 + (n % 50000), stock: n % 13 });
  }
  return items;
}

function selectVisible(items) {
  return items.filter((it) => it.stock > 0).sort((a, b) => a.cents - b.cents || a.id - b.id);
}

function renderItem(it) {
  let price = `<b>${formatPrice(it.cents, false)}</b>`;
  if (version === 'new' && it.id % 10 === 0) {
    price = `<s>${formatPrice(Math.round(it.cents * 1.25), true)}</s> ` + price;
  }
  return `<li data-id="${it.id}"><span>${escapeHTML(it.name)}</span> ${price}</li>`;
}

function renderPage(seed) {
  const visible = selectVisible(buildCatalogue(seed));
  return `<ul>${visible.map(renderItem).join('')}</ul>`;
}

const queries = ['co', 'item', '7', 'x', '"', 'amp', '<1', 'z'];

function foldName(name) {
  return name.normalize('NFKD').toLowerCase();
}

function searchIndex(items) {
  return items.map((it) => ({ item: it, key: foldName(it.name) }));
}

function matchItems(items, index, query) {
  if (version === 'new') {
    return index.filter((e) => e.key.includes(query)).map((e) => e.item);
  }
  return items.filter((it) => foldName(it.name).includes(query));
}

function renderSearch(seed) {
  const items = buildCatalogue(seed);
  const index = version === 'new' ? searchIndex(items) : null;
  let html = '';
  for (let q = 0; q < 60; q++) {
    const found = matchItems(items, index, queries[(seed + q) % queries.length]);
    html += `<p>${found.length} results</p>`;
    if (q === 0) {
      html += `<ul>${found.slice(0, 5).map(renderItem).join('')}</ul>`;
    }
  }
  return html;
}

function main() {
  const render = page === 'listing' ? renderPage : renderSearch;
  let bytes = 0;
  for (let p = 0; p < pages; p++) {
    bytes += render(p).length;
  }
  console.log(`${version} ${page}: rendered ${pages} pages, ${bytes} bytes`);
}

main();
