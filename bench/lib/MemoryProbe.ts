/**
 * Preloaded into a benchmarked process (`--expose-gc --import ./bench/lib/MemoryProbe.ts`): on
 * SIGUSR2 it collects garbage and prints one line `memory-probe <n> rss=<bytes> heapUsed=<bytes>`
 * on stdout, so the benchmark can read the process's live memory from outside at chosen moments.
 */
let probes = 0
process.on("SIGUSR2", () => {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  const { heapUsed, rss, external, arrayBuffers } = process.memoryUsage()
  probes++
  process.stdout.write(`memory-probe ${probes} rss=${rss} heapUsed=${heapUsed} external=${external} arrayBuffers=${arrayBuffers}\n`)
})
