'use strict';
// validEmail reports whether s looks like an e-mail address; the pattern is
// built on every call.
function validEmail(s) {
  const emailRE = new RegExp('^[a-zA-Z0-9._%+\\-]+@[a-zA-Z0-9.\\-]+\\.[a-zA-Z]{2,}$');
  return s.length <= 254 && emailRE.test(s);
}

module.exports = { validEmail };
