import autocannon from "autocannon"
import * as http from "node:http"

export interface LoadOptions {
  readonly url: string
  readonly headers?: Record<string, string>
  readonly connections: number
  readonly durationSeconds: number
  readonly warmupSeconds?: number
  readonly method?: "GET" | "POST"
  readonly body?: string
  /** Request bodies sent in turn (one after another across all connections); overrides `body`. */
  readonly bodies?: ReadonlyArray<string>
}

export interface LoadResult {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly meanMs: number
  readonly total: number
  readonly non2xx: number
  readonly errors: number
}

/** Hands out `bodies` in turn: the next body for whichever request goes out next. */
const rotation = (bodies: ReadonlyArray<string>) => {
  let next = 0
  return () => bodies[next++ % bodies.length]!
}

const run = (options: LoadOptions, duration: number) => {
  const nextBody = options.bodies === undefined || options.bodies.length === 0 ? undefined : rotation(options.bodies)
  return autocannon({
    url: options.url,
    method: options.method ?? "GET",
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    // one request description rebuilt before each send (autocannon's setupRequest), with the next body
    ...(nextBody === undefined
      ? {}
      : { requests: [{ setupRequest: (request: any) => ({ ...request, body: nextBody() }) }] }),
    connections: options.connections,
    duration,
    pipelining: 1
  })
}

const resultOf = (result: autocannon.Result): LoadResult => ({
  requestsPerSecond: result.requests.average,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  meanMs: result.latency.mean,
  total: result.requests.total,
  non2xx: result.non2xx,
  errors: result.errors
})

/**
 * Exactly `amount` requests over `connections` keep-alive connections, each connection sending its
 * next request when the previous answer is in. (autocannon's `amount` mode ends on its one-second
 * tick, which would add up to a second to a short run; this ends with the last answer.) `latencies`:
 * every request's, in ms, sorted, unrounded.
 */
export const fixedRequests = async (
  options: Omit<LoadOptions, "durationSeconds">,
  amount: number
): Promise<LoadResult & { seconds: number; latencies: ReadonlyArray<number> }> => {
  const url = new URL(options.url)
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections })
  const latencies: Array<number> = []
  let non2xx = 0
  let errors = 0
  let next = 0
  const nextBody = options.bodies === undefined || options.bodies.length === 0
    ? () => options.body
    : rotation(options.bodies)
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now()
      const request = http.request(
        url,
        { method: options.method ?? "GET", headers: options.headers ?? {}, agent },
        (response) => {
          response.resume()
          response.on("end", () => {
            latencies.push(performance.now() - started)
            if (response.statusCode === undefined || response.statusCode < 200 || response.statusCode > 299) non2xx++
            resolve()
          })
        }
      )
      request.on("error", () => {
        errors++
        resolve()
      })
      request.end(nextBody())
    })
  const worker = async () => {
    while (next < amount) {
      next++
      await one()
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: Math.min(options.connections, amount) }, worker))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? 0)
  const meanMs = latencies.reduce((sum, ms) => sum + ms, 0) / Math.max(1, latencies.length)
  return {
    requestsPerSecond: amount / seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    meanMs,
    total: amount,
    non2xx,
    errors,
    seconds,
    latencies
  }
}

/** A fixed number of connections for a fixed time, after a warm-up that is not counted. */
export const load = async (options: LoadOptions): Promise<LoadResult> => {
  if ((options.warmupSeconds ?? 2) > 0) await run(options, options.warmupSeconds ?? 2)
  return resultOf(await run(options, options.durationSeconds))
}
