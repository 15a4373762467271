'use strict';
// saveSession stores the session as JSON, cart lines with their product
// details, so that a later page can show them without the catalog.
function saveSession(store, s) {
  store.set(s.id, JSON.stringify({ ...s, cart: s.cart.map((l) => [l.sku, l.qty, l]) }));
}

module.exports = { saveSession };
