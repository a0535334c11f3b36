// The same calls of the official Node Bigtable client (@google-cloud/bigtable)
// against whatever BIGTABLE_EMULATOR_HOST names: Google's emulator or rowkey
// serve. Prints one JSON document of every answer (rows, cells and their
// order, values, labels, matched flags, counters) with what differs by
// design left out: cell timestamps (the two runs happen at different times)
// and SampleRowKeys, which the emulator answers at random (its keys are
// checked separately, for rowkey serve only, under "samples" when
// RK_CHECK_SAMPLES=1). Usage: node serve_diff.js TABLE_ID > out.json
'use strict';
const {Bigtable} = require('@google-cloud/bigtable');

const tableId = process.argv[2] || 'nt';
const bt = new Bigtable({projectId: 'p'});
const instance = bt.instance('i');
const out = {};

function rowsOf(rows) {
  return rows.map(r => {
    const fams = {};
    for (const [fam, cols] of Object.entries(r.data).sort()) {
      fams[fam] = {};
      for (const [q, cells] of Object.entries(cols).sort()) {
        fams[fam][q] = cells.map(c => ({
          value: Buffer.isBuffer(c.value) ? c.value.toString('hex') : String(c.value),
          labels: c.labels || [],
        }));
      }
    }
    return {key: Buffer.isBuffer(r.id) ? r.id.toString() : String(r.id), families: fams};
  });
}

async function read(table, opts) {
  const rows = [];
  await new Promise((resolve, reject) => {
    table.createReadStream(Object.assign({decode: false}, opts))
      .on('data', r => rows.push(r))
      .on('error', reject)
      .on('end', resolve);
  });
  return rowsOf(rows);
}

// ReadRows as sent (raw protos): the keys of the rows and the cells, or the
// status code
function readRaw(table, reqOpts) {
  return new Promise((resolve) => {
    const keys = [];
    let cells = 0, key = null;
    bt.request({client: 'BigtableClient', method: 'readRows', reqOpts: Object.assign({tableName: table.name}, reqOpts)})
      .on('data', (d) => {
        for (const c of d.chunks) { // a row's later chunks may repeat its key
          if (c.rowKey && c.rowKey.length) key = Buffer.from(c.rowKey).toString();
          if (!c.valueSize) cells++;
          if (c.commitRow) keys.push(key);
        }
      })
      .on('error', (e) => resolve({code: e.code}))
      .on('end', () => resolve({rows: keys, cells}));
  });
}
const answer = (p) => p.then((r) => ({ok: r}), (e) => ({code: e.code}));

// Requests at the edge of the API. Under out: what both servers answer
// alike (same status code, same rows). Under out.differs: what rowkey serve
// answers differently from the emulator, each listed in docs/serve.md
// ("Known differences") and asserted per server by serve_differs.js.
async function edgeCases(table, raw) {
  const B = (s) => Buffer.from(s);
  const edge = {rowKeys: [B('edge')]};
  await table.insert([{key: 'edge', data: {cf: {x: 'ex', y: 'ey'}, meta: {n: 'en'}}}]);
  out.edge_range_inverted = await readRaw(table, {rows: {rowRanges: [{startKeyClosed: B('m'), endKeyOpen: B('c')}]}});
  out.edge_range_inverted_open = await readRaw(table, {rows: {rowRanges: [{startKeyOpen: B('m'), endKeyClosed: B('c')}]}});
  out.edge_range_equal_open = await readRaw(table, {rows: {rowRanges: [{startKeyClosed: B('b'), endKeyOpen: B('b')}]}});
  out.edge_range_equal_closed = await readRaw(table, {rows: {rowRanges: [{startKeyClosed: B('b'), endKeyClosed: B('b')}]}});
  out.edge_cells_per_row_limit_0 = await readRaw(table, {rows: edge, filter: {cellsPerRowLimitFilter: 0}});
  out.edge_cells_per_column_limit_0 = await readRaw(table, {rows: edge, filter: {cellsPerColumnLimitFilter: 0}});
  out.edge_cells_per_row_offset_0 = await readRaw(table, {rows: edge, filter: {cellsPerRowOffsetFilter: 0}});
  out.edge_interleave_empty = await readRaw(table, {rows: edge, filter: {interleave: {filters: []}}});
  out.edge_interleave_one = await readRaw(table, {rows: edge, filter: {interleave: {filters: [{familyNameRegexFilter: 'meta'}]}}});
  out.edge_chain_empty = await readRaw(table, {rows: edge, filter: {chain: {filters: []}}});
  out.edge_chain_one = await readRaw(table, {rows: edge, filter: {chain: {filters: [{familyNameRegexFilter: 'meta'}]}}});
  out.edge_interleave_nested_one = await readRaw(table, {rows: edge, filter: {condition: {
    predicateFilter: {passAllFilter: true}, trueFilter: {interleave: {filters: [{passAllFilter: true}]}}}}});

  const d = out.differs = {};
  d.rows_limit_negative = await readRaw(table, {rows: edge, rowsLimit: -1});
  d.column_range_without_family = await readRaw(table, {rows: edge, filter: {columnRangeFilter: {
    startQualifierClosed: B('x'), endQualifierClosed: B('y')}}});
  d.timestamp_range_negative_start = await readRaw(table, {rows: edge, filter: {timestampRangeFilter: {startTimestampMicros: -1000}}});
  d.timestamp_range_negative_end = await readRaw(table, {rows: edge, filter: {timestampRangeFilter: {endTimestampMicros: -1000}}});
  d.timestamp_range_inverted = await readRaw(table, {rows: edge, filter: {timestampRangeFilter: {
    startTimestampMicros: 5000, endTimestampMicros: 1000}}});
  // an increment of an existing empty value, after an append in the same call
  await table.insert([{key: 'inc0', data: {cf: {e: Buffer.alloc(0)}}}]);
  d.increment_of_empty_value = [
    await answer(table.row('inc0').createRules([{column: 'cf:new', append: 'x'}, {column: 'cf:e', increment: 1}])
      .then(() => 'applied')),
    await read(table, {keys: ['inc0']})];
  // a missing family in the branch not taken
  const set = (fam) => ({setCell: {familyName: fam, columnQualifier: B('hit'), timestampMicros: 1000, value: B('t')}});
  d.check_and_mutate_missing_family_not_taken = [
    await answer(raw('checkAndMutateRow', {tableName: table.name, rowKey: B('edge'),
      predicateFilter: {familyNameRegexFilter: 'cf'}, trueMutations: [set('meta')], falseMutations: [set('nofam')]})
      .then((r) => ({predicateMatched: r.predicateMatched}))),
    await read(table, {keys: ['edge'], filter: [{family: 'meta'}]})];
  d.modify_column_families_none = await answer(new Promise((resolve, reject) =>
    bt.request({client: 'BigtableTableAdminClient', method: 'modifyColumnFamilies',
                reqOpts: {name: table.name, modifications: []}},
               (e, r) => (e ? reject(e) : resolve(Object.keys(r.columnFamilies).sort())))));
}

async function main() {
  const table = instance.table(tableId);
  await table.create({splits: [Buffer.from('g'), Buffer.from('p')]});
  await table.createFamily('cf', {versions: 3});
  await table.createFamily('meta');
  const [exists] = await table.exists();
  out.exists = exists;
  const [families] = await table.getFamilies();
  out.families = families.map(f => f.id).sort();

  const entries = [];
  for (const k of ['a', 'b', 'c', 'g', 'h', 'm', 'p', 'q', 'z', 'zz', 'k 1', 'k\u00e9']) {
    entries.push({key: k, data: {cf: {x: 'v-' + k, y: 'w'}, meta: {n: k}}});
  }
  await table.insert(entries);
  const t0 = Date.now() * 1000;
  await table.insert([{key: 'b', data: {cf: {x: {value: 'second', timestamp: new Date(Date.now() + 5)}}}}]);
  await table.insert([{key: 'b', data: {cf: {x: {value: 'third', timestamp: new Date(Date.now() + 10)}}}}]);

  out.all = await read(table, {});
  out.range = await read(table, {start: 'c', end: 'q'});
  out.range_open = await read(table, {ranges: [{start: {value: 'b', inclusive: false}, end: {value: 'm', inclusive: true}}]});
  out.keys = await read(table, {keys: ['z', 'a', 'nope', 'h']});
  out.prefix = await read(table, {prefix: 'z'});
  out.prefixes = await read(table, {prefixes: ['k', 'a']});
  out.limit = await read(table, {limit: 3});
  out.f_family = await read(table, {filter: [{family: 'meta'}]});
  out.f_column = await read(table, {filter: [{column: 'x'}]});
  out.f_column_range = await read(table, {filter: [{family: 'cf', column: {start: 'x', end: 'y'}}]});
  out.f_value_regex = await read(table, {filter: [{value: /v-[a-c]/}]});
  out.f_value_range = await read(table, {filter: [{value: {start: 'v-g', end: 'v-q'}}]});
  out.f_row_regex = await read(table, {filter: [{row: /[g-m]/}]});
  out.f_cells_per_column = await read(table, {filter: [{column: {cellLimit: 1}}]});
  // within one family: the emulator walks a row's families in Go map order
  // (at random) when it counts cells per row; rowkey and Bigtable go in order
  out.f_cells_per_row = await read(table, {filter: [{family: 'cf'}, {row: {cellLimit: 2}}]});
  out.f_cells_offset = await read(table, {filter: [{family: 'cf'}, {row: {cellOffset: 1}}]});
  out.f_strip = await read(table, {filter: [{value: {strip: true}}]});
  out.f_label = await read(table, {filter: [{family: 'meta'}, {label: 'lab'}]});
  out.f_interleave = await read(table, {filter: [{interleave: [[{family: 'meta'}], [{column: 'x'}, {column: {cellLimit: 1}}]]}]});
  out.f_condition = await read(table, {filter: [{condition: {test: [{value: /v-a/}], pass: [{family: 'meta'}], fail: [{column: 'y'}]}}]});
  out.f_time = await read(table, {filter: [{time: {start: new Date(0), end: new Date(Date.now() + 60000)}}, {family: 'meta'}]});
  out.f_block = await read(table, {filter: [{all: false}]});
  out.f_pass = await read(table, {filter: [{all: true}], limit: 2});

  // checkAndMutate: matched on a, not on zz
  const ra = table.row('a');
  const [m1] = await ra.filter([{value: /v-a/}], {onMatch: [{method: 'insert', data: {meta: {hit: 'yes'}}}], onNoMatch: [{method: 'insert', data: {meta: {hit: 'no'}}}]});
  const [m2] = await table.row('zz').filter([{value: /nothing/}], {onMatch: [{method: 'insert', data: {meta: {hit: 'yes'}}}], onNoMatch: [{method: 'insert', data: {meta: {hit: 'no'}}}]});
  out.check = [m1, m2];
  // increments and appends
  const ctr = table.row('ctr');
  const [v1] = await ctr.increment('cf:n', 5);
  const [v2] = await ctr.increment('cf:n', -2);
  await ctr.createRules([{column: 'cf:s', append: 'ab'}]);
  const [rulesOut] = await ctr.createRules([{column: 'cf:s', append: 'cd'}, {column: 'cf:n', increment: 10}]);
  out.increments = [Number(v1), Number(v2)];
  out.rules = rowsOf([{id: 'ctr', data: rulesOut.data || {}}]);
  // deletes
  await table.row('a').deleteCells(['cf:x']);
  await table.row('c').delete();
  await table.mutate({key: 'h', method: 'delete', data: ['meta']});
  out.after_deletes = await read(table, {end: 'i'});
  // deletes are ordered by when they apply, not by timestamp: inside one
  // MutateRow [SetCell a, DeleteFromRow, SetCell b] leaves b; a write after
  // a delete shows whatever its timestamp; a column's time range [20, 30) ms
  const raw = (method, reqOpts) => new Promise((resolve, reject) =>
    bt.request({client: 'BigtableClient', method, reqOpts}, (e, r) => (e ? reject(e) : resolve(r))));
  const set = (q, ms, v) => ({setCell: {familyName: 'cf', columnQualifier: Buffer.from(q),
                                        timestampMicros: ms * 1000, value: Buffer.from(v)}});
  await raw('mutateRow', {tableName: table.name, rowKey: Buffer.from('ord'),
                          mutations: [set('x', 10, 'a'), {deleteFromRow: {}}, set('x', 5, 'b')]});
  out.order_in_request = await read(table, {keys: ['ord']});
  await raw('mutateRow', {tableName: table.name, rowKey: Buffer.from('ord2'), mutations: [set('x', 100, 'new')]});
  await table.row('ord2').delete();
  await raw('mutateRow', {tableName: table.name, rowKey: Buffer.from('ord2'), mutations: [set('x', 50, 'older')]});
  out.order_across = await read(table, {keys: ['ord2']});
  await raw('mutateRow', {tableName: table.name, rowKey: Buffer.from('tr'),
                          mutations: [set('x', 10, 'v10'), set('x', 20, 'v20'), set('x', 30, 'v30')]});
  await table.row('tr').deleteCells([{column: 'cf:x', time: {start: new Date(20), end: new Date(30)}}]);
  out.time_range_delete = await read(table, {keys: ['tr']});
  const [cmTr] = await table.row('tr').filter([{column: 'x'}], {onMatch: [
    {method: 'delete', data: [{column: 'cf:x', time: {start: new Date(25), end: new Date(35)}}]}]});
  out.time_range_delete_in_check = [cmTr, await read(table, {keys: ['tr']})];
  await edgeCases(table, raw);
  // MutateRows with a bad entry: the good ones apply
  try {
    await table.insert([{key: 'n1', data: {cf: {x: '1'}}}, {key: 'n2', data: {nofam: {x: '1'}}}, {key: 'n3', data: {cf: {x: '3'}}}]);
    out.partial = 'no error';
  } catch (e) {
    out.partial = (e.errors || []).map(x => x.entry ? x.entry.key : x.code).sort();
  }
  out.after_partial = await read(table, {prefix: 'n'});
  // unknown table
  try {
    await read(instance.table('nosuch'), {});
    out.missing = 'no error';
  } catch (e) {
    out.missing = e.code;
  }
  if (process.env.RK_CHECK_SAMPLES === '1') {
    const [samples] = await table.sampleRowKeys();
    out.samples = samples.map(s => (Buffer.isBuffer(s.key) ? s.key.toString() : String(s.key)));
  }
  // instances apart: the same table id in another instance is another table,
  // listed, read and dropped there alone
  const other = bt.instance('i2').table(tableId);
  await other.create();
  await other.createFamily('o');
  await other.insert([{key: 'only-i2', data: {o: {x: 'v'}}}]);
  out.inst_other_rows = await read(other, {});
  out.inst_own_rows = (await read(table, {prefix: 'only'})).map(r => r.key);
  out.inst_other_families = (await other.getFamilies())[0].map(f => f.id).sort();
  out.inst_tables_i = (await instance.getTables())[0].map(t => t.name).sort();
  out.inst_tables_i2 = (await bt.instance('i2').getTables())[0].map(t => t.name).sort();
  await other.delete();
  out.inst_own_after_other_drop = [(await table.exists())[0], (await other.exists())[0]];
  await table.deleteRows('k');
  out.after_drop_prefix = (await read(table, {})).map(r => r.key);
  await table.delete();
  const [e2] = await table.exists();
  out.exists_after_delete = e2;
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
  void t0;
}

main().then(() => process.exit(0), e => {
  console.error('serve_diff.js:', e && e.stack ? e.stack : e);
  process.exit(1);
});
