// What rowkey serve answers differently from Google's emulator on purpose:
// serve_diff.js records these calls under "differs" against each server;
// this checks each server's answer is the one expected of it, that every
// difference is listed in docs/serve.md (its `doc` text is there), and then
// drops "differs" from both files so the rest can be compared whole.
// Usage: node serve_differs.js EMULATOR.json SERVE.json DOCS/serve.md
'use strict';
const fs = require('fs');

const rows = (keys, cells) => ({rows: keys, cells});
const INVALID_ARGUMENT = {code: 3};
const EDGE = rows(['edge'], 3);

// name: the emulator's answer, rowkey serve's, and where docs/serve.md says why
const EXPECTED = {
  rows_limit_negative: {
    emulator: rows([], 0), serve: INVALID_ARGUMENT, doc: '**A negative `rows_limit`**'},
  column_range_without_family: {
    emulator: rows([], 0), serve: INVALID_ARGUMENT, doc: '**A column range filter without a family**'},
  timestamp_range_negative_start: {
    emulator: EDGE, serve: INVALID_ARGUMENT, doc: '**Timestamp range filters**'},
  timestamp_range_negative_end: {
    emulator: rows([], 0), serve: INVALID_ARGUMENT, doc: '**Timestamp range filters**'},
  timestamp_range_inverted: {
    emulator: rows([], 0), serve: INVALID_ARGUMENT, doc: '**Timestamp range filters**'},
  increment_of_empty_value: {
    // the emulator: UNKNOWN, and the append before the increment applied
    emulator: [{code: 2}, [{key: 'inc0', families: {cf: {e: [{value: '', labels: []}],
                                                       new: [{value: '78', labels: []}]}}}]],
    serve: [{code: 9}, [{key: 'inc0', families: {cf: {e: [{value: '', labels: []}]}}}]],
    doc: '**An increment of a value that is not 8 bytes**'},
  check_and_mutate_missing_family_not_taken: {
    emulator: [{ok: {predicateMatched: true}},
               [{key: 'edge', families: {meta: {hit: [{value: '74', labels: []}], n: [{value: '656e', labels: []}]}}}]],
    serve: [{code: 5}, [{key: 'edge', families: {meta: {n: [{value: '656e', labels: []}]}}}]],
    doc: '**CheckAndMutateRow checks both branches**'},
  modify_column_families_none: {
    emulator: {ok: ['cf', 'meta']}, serve: INVALID_ARGUMENT, doc: '**ModifyColumnFamilies without modifications**'},
};

function main(emuFile, svFile, docFile) {
  const docs = fs.readFileSync(docFile, 'utf8');
  const got = {emulator: JSON.parse(fs.readFileSync(emuFile)), serve: JSON.parse(fs.readFileSync(svFile))};
  const bad = [];
  for (const [name, want] of Object.entries(EXPECTED)) {
    if (!docs.includes(want.doc)) bad.push(`${name}: docs/serve.md does not list it (${want.doc})`);
    for (const who of ['emulator', 'serve']) {
      const g = (got[who].differs || {})[name];
      if (JSON.stringify(g) !== JSON.stringify(want[who]))
        bad.push(`${name}: ${who} answered ${JSON.stringify(g)}, expected ${JSON.stringify(want[who])}`);
    }
  }
  for (const who of ['emulator', 'serve'])
    for (const name of Object.keys(got[who].differs || {}))
      if (!EXPECTED[name]) bad.push(`${name}: recorded as a difference but not expected here`);
  if (bad.length) {
    console.error(bad.join('\n'));
    process.exit(1);
  }
  for (const [who, file] of [['emulator', emuFile], ['serve', svFile]]) {
    delete got[who].differs;
    fs.writeFileSync(file, JSON.stringify(got[who], null, 1) + '\n');
  }
}

main(...process.argv.slice(2));
