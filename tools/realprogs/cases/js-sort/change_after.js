'use strict';
// rankResults sorts all results, best first, newest first among equals.
function rankResults(results) {
  return results.sort((a, b) => b.score - a.score || b.updated - a.updated);
}

module.exports = { rankResults };
