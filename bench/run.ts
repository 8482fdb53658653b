// `npm run bench`: runs every benchmark of issue 13's table, and issue 14's replicas, one after
// another (the machine has two cores; two benchmarks at once would measure each other) at the
// quick size, or at full size with `--full`, and prints one table of figures, references and ratios.
//
//   npm run bench [-- --full] [-- --only P3,P4]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { round, type Figure } from './support/report.js';

interface Benchmark {
  goal: string;
  script: string;
}

const BENCHMARKS: Benchmark[] = [
  { goal: 'P1', script: 'agent-cpu.ts' },
  { goal: 'P2', script: 'agent-scale.ts' },
  { goal: 'P3', script: 'ingest-throughput.ts' },
  { goal: 'P4', script: 'alert-to-webhook.ts' },
  { goal: 'P5', script: 'api-read.ts' },
  { goal: 'P6', script: 'api-write.ts' },
  { goal: 'P7', script: 'history-at-scale.ts' },
  { goal: 'P8', script: 'storage-bytes.ts' },
  { goal: 'P9', script: 'embedded-memory.ts' },
  // Issue 14: one, two and three replicas (needs TEST_DATABASE_URL).
  { goal: 'R', script: 'replicas.ts' },
  // Issue 38: what assertions, decompression, HTTP/2 and proxies cost per check.
  { goal: 'V1', script: 'check-features.ts' },
  // Issue 39: rules by selector and silences at 10,000 services and 500 rules, beside rules by service_id.
  { goal: 'A1', script: 'alert-selectors.ts' },
  // Issue 44: CPU at rest (no services, 20 services), embedded and on PostgreSQL, beside a bare Koa server.
  { goal: 'I1', script: 'idle.ts' },
  // Issue 44: the whole product's CPU per check at 20 and 1,000 HTTP services, beside a bare Node loop.
  { goal: 'W1', script: 'whole-product.ts' },
];

const full = process.argv.includes('--full');
const onlyArg = process.argv[process.argv.indexOf('--only') + 1];
const only = process.argv.includes('--only') && onlyArg ? new Set(onlyArg.split(',')) : null;
const dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-'));
const reportFile = path.join(dir, 'figures.jsonl');
const here = path.dirname(new URL(import.meta.url).pathname);
const failed: string[] = [];

for (const b of BENCHMARKS) {
  if (only && !only.has(b.goal)) continue;
  const script = path.join(here, b.script);
  console.log(`\n== ${b.goal}: bench/${b.script}${full ? ' --full' : ''}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', script, ...(full ? ['--full'] : [])], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_REPORT: reportFile },
    timeout: 30 * 60_000,
  });
  if (run.status !== 0) failed.push(`${b.goal} (exit ${run.status ?? run.signal})`);
}

const figures: (Figure & { ratio: number | null })[] = existsSync(reportFile)
  ? readFileSync(reportFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l))
  : [];
rmSync(dir, { recursive: true, force: true });

const rows = figures.map((f) => [
  f.id,
  f.what,
  `${round(f.ours)} ${f.unit}`,
  f.reference ? `${round(f.reference.value)} ${f.unit} (${f.reference.name})` : '—',
  f.ratio === null ? '—' : `${f.ratio.toFixed(2)}x`,
  f.goal,
  f.met ? 'met' : 'NOT met',
]);
const header = ['id', 'what', 'ours', 'reference (same run)', 'ratio', 'goal', ''];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(`\n${line(header)}\n| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |\n${rows.map(line).join('\n')}`);
if (failed.length > 0) {
  console.log(`\nbenchmarks that failed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
