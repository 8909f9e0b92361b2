/**
 * The benches' load loop: `count` calls of `make(i)`, `concurrency` at a time, after `warmup`
 * calls one by one (a cold route runs at a fraction of its warm speed). Returns req/s, the
 * latency quantiles in ms, and this process's CPU per call in ms (what a server in this process
 * spends, its client's share included: steadier than req/s on a loaded machine).
 */
export async function measureConcurrently(make, { count, concurrency, warmup }) {
  for (let i = 0; i < Math.min(warmup, count); i++) await make(i);
  const latencies = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = process.hrtime.bigint();
        await make(i);
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  const pick = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rps: count / seconds, p50: pick(0.5), p99: pick(0.99), cpuMs: (used.user + used.system) / 1000 / count };
}
