// js-json is a Node.js shop's cart endpoint without the network: each
// request loads the shopper's session from the session store (a JSON
// string), applies a cart operation, prices the cart and saves the session
// back. The changed function lives in change.js (run.sh puts
// change_before.js or change_after.js there).
'use strict';
const { saveSession } = require('./change.js');

function arg(name, def) {
  const i = process.argv.indexOf('--' + name);
  return i >= 0 ? process.argv[i + 1] : def;
}

let seed = 4242;
function rnd(n) {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed % n;
}

const catalog = [];
for (let i = 0; i < 2000; i++) {
  catalog.push({ sku: 'SKU-' + i, title: 'Product number ' + i + ' in blue', price: 100 + rnd(20000),
    category: ['books', 'toys', 'garden', 'kitchen'][rnd(4)], weight: rnd(5000) });
}

function newSession(id) {
  return { id, user: 'u' + id, created: 1733600000000, updated: 1733600000000, cart: [], history: [], prefs: { currency: 'EUR', lang: 'de' } };
}

function loadSession(store, id) {
  const raw = store.get(id);
  if (raw === undefined) return newSession(id);
  const s = JSON.parse(raw);
  // The cart is stored as SKUs and quantities; product details come from the catalog.
  s.cart = s.cart.map(([sku, qty]) => ({ ...catalog[+sku.slice(4)], qty }));
  return s;
}

function applyOp(s, op) {
  if (op.kind === 'add') {
    const line = s.cart.find((l) => l.sku === op.sku);
    if (line) line.qty += op.qty;
    else s.cart.push({ ...catalog[+op.sku.slice(4)], qty: op.qty });
  } else if (op.kind === 'remove') {
    s.cart = s.cart.filter((l) => l.sku !== op.sku);
  }
  if (s.cart.length > 12) s.cart.shift();
  s.history.push({ kind: op.kind, sku: op.sku, at: s.updated });
  if (s.history.length > 20) s.history.shift();
  s.updated += 1000;
}

function priceCart(s) {
  let total = 0;
  let weight = 0;
  for (const l of s.cart) {
    total += l.price * l.qty;
    weight += l.weight * l.qty;
  }
  const shipping = weight > 10000 ? 1299 : 499;
  const discount = s.cart.length >= 5 ? Math.round(total * 0.05) : 0;
  return { total: total - discount + shipping, shipping, discount };
}

function render(s, price) {
  return '{"items":' + s.cart.length + ',"total":' + price.total + ',"shipping":' + price.shipping + '}';
}

function handle(store, op) {
  const s = loadSession(store, op.session);
  applyOp(s, op);
  const price = priceCart(s);
  saveSession(store, s);
  return render(s, price);
}

function main() {
  const n = parseInt(arg('n', '30000'), 10);
  const ops = [];
  for (let i = 0; i < 5000; i++) {
    ops.push({ session: rnd(3000), kind: rnd(5) === 0 ? 'remove' : 'add', sku: 'SKU-' + rnd(2000), qty: 1 + rnd(3) });
  }
  const store = new Map();
  let out = 0;
  for (let i = 0; i < n; i++) out += handle(store, ops[i % ops.length]).length;
  console.log('response bytes:', out);
}

main();
