/** Runs `f` `n` times one after another; answers the median and p99 of the durations in ms. */
export const sequentialLatency = async (n: number, f: (i: number) => Promise<void>) => {
  const durations: Array<number> = []
  for (let i = 0; i < n; i++) {
    const started = performance.now()
    await f(i)
    durations.push(performance.now() - started)
  }
  durations.sort((a, b) => a - b)
  const at = (q: number) => durations[Math.min(durations.length - 1, Math.ceil(q * durations.length) - 1)]!
  return { medianMs: at(0.5), p99Ms: at(0.99), n }
}
