'use strict';
// saveSession stores the session as JSON, with the cart reduced to SKUs and
// quantities.
function saveSession(store, s) {
  store.set(s.id, JSON.stringify({ ...s, cart: s.cart.map((l) => [l.sku, l.qty]) }));
}

module.exports = { saveSession };
