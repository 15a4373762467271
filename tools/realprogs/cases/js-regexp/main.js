// js-regexp replays a batch of sign-up requests the way a Node.js sign-up
// endpoint handles them: parse the JSON body, validate the address, normalize the
// name, hash the password, score the risk, store the account and render the
// response. The changed function lives in change.js (run.sh puts
// change_before.js or change_after.js there).
'use strict';
const { validEmail } = require('./change.js');

function arg(name, def) {
  const i = process.argv.indexOf('--' + name);
  return i >= 0 ? process.argv[i + 1] : def;
}

const firstNames = ['anna', 'björn', 'carla', 'DMITRI', 'eve', 'françois', 'gus', 'hana'];
const lastNames = ['smith', "o'neil", 'garcía', 'ng', 'van der berg', 'KOWALSKI'];
const domains = ['example.com', 'mail.example.org', 'corp.test', 'bad_domain', 'x.io'];
const countries = ['DE', 'FR', 'US', 'JP', 'BR', 'IN'];

function makeRequests(k) {
  let seed = 12345;
  const rnd = (n) => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed % n; };
  const out = [];
  for (let i = 0; i < k; i++) {
    const first = firstNames[rnd(firstNames.length)];
    out.push(JSON.stringify({
      name: ' ' + first + '  ' + lastNames[rnd(lastNames.length)] + ' ',
      email: first.toLowerCase() + '.' + i + '@' + domains[rnd(domains.length)],
      country: countries[rnd(countries.length)],
      password: 'pw-' + rnd(1e6) + '-' + rnd(1e9).toString(16),
      age: 14 + rnd(70),
      invite: [firstNames[rnd(firstNames.length)].toLowerCase() + '@' + domains[rnd(domains.length)],
        'friend' + rnd(1000) + '@' + domains[rnd(domains.length)], 'team' + rnd(50) + '@' + domains[rnd(domains.length)],
        'boss' + rnd(9) + '@' + domains[rnd(domains.length)], 'ops' + rnd(20) + '@' + domains[rnd(domains.length)]],
    }));
  }
  return out;
}

function parseBody(body) {
  const p = JSON.parse(body);
  if (typeof p.email !== 'string' || typeof p.name !== 'string') throw new Error('bad request');
  return { name: p.name, email: p.email, country: p.country || 'US', password: p.password, age: p.age | 0,
    invite: Array.isArray(p.invite) ? p.invite : [] };
}

function normalizeName(s) {
  return s.trim().split(/\s+/).map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase()).join(' ');
}

// hashPassword stretches the password with rounds of FNV-1a (a stand-in for
// a real KDF, kept cheap).
function hashPassword(pw, salt) {
  let h = 0x811c9dc5;
  const s = pw + salt;
  for (let r = 0; r < 12; r++) {
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  }
  return h;
}

function riskScore(a) {
  let score = 0;
  if (a.email.endsWith('.io')) score += 10;
  if (a.age < 21) score += 5;
  if (a.country === 'BR' || a.country === 'IN') score += 3;
  return score;
}

function renderResponse(a) {
  return JSON.stringify({ status: 'ok', name: a.name, email: a.email, risk: a.risk, id: a.hash.toString(36),
    invited: a.invite.length });
}

function handleSignup(body, store) {
  const s = parseBody(body);
  if (!validEmail(s.email)) return JSON.stringify({ status: 'error', message: 'invalid email' });
  if (s.age < 16) return JSON.stringify({ status: 'error', message: 'too young' });
  s.invite = s.invite.filter(validEmail);
  s.name = normalizeName(s.name);
  const a = { ...s, hash: hashPassword(s.password, s.email) };
  a.risk = riskScore(a);
  store.set(a.email, a);
  if (store.size > 20000) store.clear();
  return renderResponse(a);
}

function main() {
  const n = parseInt(arg('n', '250000'), 10);
  const bodies = makeRequests(4000);
  const store = new Map();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += handleSignup(bodies[i % bodies.length], store).length;
  console.log('response bytes:', sum);
}

main();
