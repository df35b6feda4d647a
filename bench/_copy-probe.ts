import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { readAllPages } from './read-floor';
const url = 'postgres://postgres@127.0.0.1:5432/pass_bench_rebuild';
const schema = 'rebuild_1000000';
const c = new pg.Client({ connectionString: url });
await c.connect();
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
for (let round = 0; round < 2; round++) {
  let t = performance.now(), c0 = cpu();
  const n = await readAllPages((sql, params) => c.query(sql, params) as never, schema);
  console.log(`rows floor: ${n} in ${((performance.now() - t) / 1000).toFixed(2)} s, client CPU ${(cpu() - c0).toFixed(2)} s`);
  t = performance.now(); c0 = cpu();
  const stream = c.query(copyTo(`COPY (SELECT event_id, stream_id, revision, transaction_id, global_position, type, data, metadata, floor(extract(epoch FROM recorded_at) * 1000)::float8 FROM "${schema}".events WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY transaction_id, global_position) TO STDOUT`));
  let count = 0; let rest = '';
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const text = rest + chunk.toString('utf8');
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const cols = text.slice(start, nl).split('\t');
      // the JSON columns, unescaped (COPY text doubles backslashes)
      const d = cols[6]!.includes('\\') ? cols[6]!.replace(/\\\\/g, '\\') : cols[6]!;
      const m = cols[7]!.includes('\\') ? cols[7]!.replace(/\\\\/g, '\\') : cols[7]!;
      JSON.parse(d); JSON.parse(m);
      count++;
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  console.log(`copy text + JSON.parse: ${count} in ${((performance.now() - t) / 1000).toFixed(2)} s, client CPU ${(cpu() - c0).toFixed(2)} s`);
}
await c.end();
