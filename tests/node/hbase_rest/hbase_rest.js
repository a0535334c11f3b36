// rowkey serve --hbase-rest through the npm `hbase` client (adaltas'
// node-hbase, the REST connector): node hbase_rest.js HOST PORT. Creates a
// table, puts (one cell, several columns, several rows with timestamps),
// gets (versions), scans with a scanner (all rows, a PrefixFilter), reads
// the schema and regions, deletes a column and a row, drops the table. Each
// answer is checked here; any mismatch throws (exit 1).
'use strict';
const hbase = require('hbase');
const assert = require('assert');

const [host, port] = process.argv.slice(2);
const client = hbase({host, port: Number(port)});
const p = (obj, fn, ...args) =>
  new Promise((ok, ko) => obj[fn](...args, (err, res) => (err ? ko(err) : ok(res))));
const values = (cells) => cells.map((c) => `${c.key || ''}|${c.column}|${c.$}`).sort();

(async () => {
  const v = await p(client, 'version');
  assert.ok(v.REST.startsWith('rowkey'), JSON.stringify(v));
  const t = client.table('nt');
  await p(t, 'create', {ColumnSchema: [{name: 'cf', VERSIONS: 3}, {name: 'meta'}]});
  assert.strictEqual(await p(t, 'exists'), true);
  const schema = await p(t, 'schema');
  assert.deepStrictEqual(schema.ColumnSchema.map((f) => [f.name, f.VERSIONS]),
                         [['cf', '3'], ['meta', '1']]);
  assert.ok((await p(client, 'tables')).some((x) => x.name === 'nt'));

  await p(t.row('r1'), 'put', 'cf:a', 'v1');
  await p(t.row('r1'), 'put', ['cf:a', 'cf:b'], ['v2', 'x']);
  await p(t.row(), 'put', [
    {key: 'r2', column: 'cf:a', $: 'old', timestamp: 1000},
    {key: 'r2', column: 'cf:a', $: 'new', timestamp: 2000},
    {key: 'r3', column: 'meta:n', $: 'three'},
  ]);
  assert.deepStrictEqual(values(await p(t.row('r1'), 'get', 'cf', {v: 2})),
                         ['|cf:a|v1', '|cf:a|v2', '|cf:b|x']);
  const r2 = await p(t.row('r2'), 'get', 'cf:a', {v: 3});
  assert.deepStrictEqual(r2.map((c) => [c.$, c.timestamp]), [['new', 2000], ['old', 1000]]);
  await assert.rejects(p(t.row('nope'), 'get', 'cf'), (e) => e.code === 404);

  const all = await p(t, 'scan', {maxVersions: 1, batch: 2});
  assert.deepStrictEqual(values(all), ['r1|cf:a|v2', 'r1|cf:b|x', 'r2|cf:a|new', 'r3|meta:n|three']);
  const pre = await p(t, 'scan', {filter: {type: 'PrefixFilter', value: 'r2'}, maxVersions: 1});
  assert.deepStrictEqual(values(pre), ['r2|cf:a|new']);
  const regions = await p(t, 'regions');
  assert.ok(regions.Region.length >= 1 && regions.Region[0].location.startsWith('server-'));

  await p(t.row('r1'), 'delete', 'cf:b');
  assert.deepStrictEqual(values(await p(t.row('r1'), 'get', 'cf')), ['|cf:a|v2']);
  await p(t.row('r3'), 'delete');
  assert.strictEqual(await p(t.row('r3'), 'exists'), false);

  await p(t, 'delete');
  assert.strictEqual(await p(t, 'exists'), false);
  console.log('ok');
})().catch((e) => {
  console.error('FAIL:', e && e.stack ? e.stack : e);
  process.exit(1);
});
