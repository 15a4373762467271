// js-noise renders blog pages the way a Node.js server-side renderer does:
// parse a light markup into blocks, escape, apply a layout, build a table of
// contents and serialize page metadata. The same script runs on both sides
// of a comparison: any difference is noise.
'use strict';

function arg(name, def) {
  const i = process.argv.indexOf('--' + name);
  return i >= 0 ? process.argv[i + 1] : def;
}

let seed = 99;
function rnd(n) {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed % n;
}

const vocab = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', '<b>', 'consectetur', '&', 'adipiscing', 'elit', '"quoted"'];

function makePost(i) {
  const lines = [];
  for (let s = 0; s < 6; s++) {
    lines.push('## Section ' + s + ' of post ' + i);
    for (let p = 0; p < 3; p++) {
      lines.push(Array.from({ length: 25 }, () => vocab[rnd(vocab.length)]).join(' '));
      lines.push('');
    }
    lines.push('- item one\n- item two\n- item *three*');
  }
  return lines.join('\n');
}

function escapeHTML(s) {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

function inline(s) {
  return escapeHTML(s).replace(/\*([^*]+)\*/g, '<em>$1</em>');
}

function parseBlocks(src) {
  const blocks = [];
  for (const chunk of src.split(/\n\s*\n/)) {
    for (const line of chunk.split('\n')) {
      if (line.startsWith('## ')) blocks.push({ type: 'h2', text: line.slice(3) });
      else if (line.startsWith('- ')) blocks.push({ type: 'li', text: line.slice(2) });
      else if (line.trim()) blocks.push({ type: 'p', text: line });
    }
  }
  return blocks;
}

function slug(s) {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

function toc(blocks) {
  return blocks.filter((b) => b.type === 'h2').map((b) => '<a href="#' + slug(b.text) + '">' + inline(b.text) + '</a>');
}

function renderBlocks(blocks) {
  let out = '';
  for (const b of blocks) {
    if (b.type === 'h2') out += '<h2 id="' + slug(b.text) + '">' + inline(b.text) + '</h2>';
    else if (b.type === 'li') out += '<li>' + inline(b.text) + '</li>';
    else out += '<p>' + inline(b.text) + '</p>';
  }
  return out;
}

function renderPage(src, i) {
  const blocks = parseBlocks(src);
  const meta = JSON.stringify({ id: i, words: src.split(/\s+/).length, sections: blocks.filter((b) => b.type === 'h2').length });
  return '<html><head><script type="application/json">' + meta + '</script></head><body><nav>' + toc(blocks).join('') +
    '</nav>' + renderBlocks(blocks) + '</body></html>';
}

function main() {
  const n = parseInt(arg('n', '12000'), 10);
  const posts = Array.from({ length: 200 }, (_, i) => makePost(i));
  let out = 0;
  for (let i = 0; i < n; i++) out += renderPage(posts[i % posts.length], i).length;
  console.log('html bytes:', out);
}

main();
