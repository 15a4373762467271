'use strict';
// validEmail reports whether s looks like an e-mail address; the pattern is
// compiled once, when the module loads.
const emailRE = /^[a-zA-Z0-9._%+\-]+@[a-zA-Z0-9.\-]+\.[a-zA-Z]{2,}$/;

function validEmail(s) {
  return s.length <= 254 && emailRE.test(s);
}

module.exports = { validEmail };
