/**
 * What the loopback fakes of outside providers (OpenAI, ElevenLabs, Deepgram, Twilio, messaging)
 * share: the server on 127.0.0.1 and a free port, reading a request, the waits a test makes for what
 * a fake records, and real-time sleeps that end when the fake stops.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type * as stream from "node:stream"

// --- requests

/** The whole request body. */
export const readBytes = (request: http.IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks)))
    request.on("error", reject)
  })

/** The whole request body as UTF-8 text. */
export const readBody = (request: http.IncomingMessage) => readBytes(request).then((bytes) => bytes.toString("utf8"))

/** The request's headers, names in lower case, repeated ones joined with `, `. */
export const headersOf = (request: http.IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return headers
}

/** A request as the fakes record it. */
export interface RawRequest {
  readonly method: string
  /** The path and query string. */
  readonly path: string
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  readonly rawBody: string
}

/** Reads the request whole. */
export const readRequest = async (request: http.IncomingMessage): Promise<RawRequest> => ({
  method: request.method ?? "GET",
  path: request.url ?? "/",
  headers: headersOf(request),
  rawBody: await readBody(request)
})

/** A request with its body parsed. */
export interface JsonRequest extends RawRequest {
  /** The parsed JSON body; `undefined` when it is not JSON. */
  readonly body: unknown
}

/** Reads the request whole, with its body parsed. */
export const readJsonRequest = async (request: http.IncomingMessage): Promise<JsonRequest> => {
  const raw = await readRequest(request)
  const parsed = parseJson(raw.rawBody)
  return { ...raw, body: parsed.ok ? parsed.value : undefined }
}

/** JSON.parse without throwing: a fake answers malformed bodies with the provider's own error. */
export const parseJson = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

/** A JSON object's fields; `{}` for anything else. */
export const record = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}

/** OpenAI's error body. */
export const openAiError = (
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null
) => ({
  error: { message, type, param, code }
})

/** What an HTTP fake does with a request instead of answering it normally. */
export type HttpFault =
  /** Answer with this status and body (the provider's error shape for the status unless given). */
  | { readonly _tag: "Respond"; readonly status: number; readonly body?: unknown }
  /** Never answer; the connection stays open until the client gives up or the server closes. */
  | { readonly _tag: "Hang" }
  /** Drop the connection without an answer. */
  | { readonly _tag: "Reset" }
  /** Wait this long (real time), then answer normally. */
  | { readonly _tag: "Delay"; readonly millis: number }

/** Answers with `body` as JSON; `headers` are added to (or replace) the content type and length. */
export const sendJson = (
  response: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {}
) => {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers
  })
  response.end(text)
}

/**
 * Posts to a client of the fake as the provider would (a status callback, a webhook): what `request`
 * gives is built when this runs, so a throw there is this effect's failure. Answers the HTTP status.
 */
export const post = (
  request: () => { readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly body: string }
): Effect.Effect<number, Error> =>
  Effect.tryPromise({
    try: async (signal) => {
      const { body, headers, url } = request()
      const response = await fetch(url, { method: "POST", headers, body, signal })
      await response.arrayBuffer()
      return response.status
    },
    catch: (error) => error instanceof Error ? error : new Error(String(error))
  })

// --- the server

/**
 * An HTTP server that answers each request with `handle`. When `handle` fails, `failed` answers in
 * its stead; once the answer has begun (or the client has gone), the connection is dropped instead.
 */
export const httpServer = (
  handle: (request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>,
  failed: (response: http.ServerResponse, error: unknown) => void
): http.Server =>
  http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent && !response.destroyed) failed(response, error)
      else response.destroy()
    })
  })

/**
 * Starts `server` on 127.0.0.1 and a free port, and answers the port. When the scope closes, `stop`
 * runs first (a fake's own sockets and sleeps), then every connection is dropped and the server closes.
 */
export const listen = (server: http.Server, stop: () => void = () => {}): Effect.Effect<number, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
    }),
    () =>
      Effect.async<void>((resume) => {
        stop()
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

/** Refuses a WebSocket upgrade with an HTTP answer: this status, a JSON body and these extra headers. */
export const refuseUpgrade = (
  socket: stream.Duplex,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {}
) => {
  const text = JSON.stringify(body)
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? "Error"}\r\n` +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(text)}\r\n` +
      Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("") +
      "Connection: close\r\n\r\n" +
      text
  )
}

// --- waits

export interface Waiters {
  /** Wakes the waits whose condition now holds: call it after every event a wait may be for. */
  readonly wake: () => void
  /**
   * Waits until `ready()` holds, checked now and on every `wake`. Dies after `millis` of real time
   * (30 s unless given), saying what it waited for and, when `seen` is given, what the fake saw.
   */
  readonly until: (what: string, ready: () => boolean, millis?: number, seen?: () => string) => Effect.Effect<void>
}

/** The waits of the fake called `name` (it starts their messages). */
export const makeWaiters = (name: string): Waiters => {
  const waiting = new Set<{ readonly ready: () => boolean; readonly wake: () => void }>()
  return {
    wake: () => {
      for (const waiter of [...waiting].filter((w) => w.ready())) {
        waiting.delete(waiter)
        waiter.wake()
      }
    },
    // Wakes on the event itself; the limit is real time (the fake does real I/O), only there so a test
    // on the TestClock cannot hang here forever, and generous so a loaded machine never reaches it.
    until: (what, ready, millis = 30_000, seen) =>
      Effect.async<void>((resume) => {
        if (ready()) return resume(Effect.void)
        const waiter = {
          ready,
          wake: () => {
            clearTimeout(timer)
            resume(Effect.void)
          }
        }
        const timer = setTimeout(() => {
          waiting.delete(waiter)
          resume(
            Effect.dieMessage(`${name}: waited ${millis} ms for ${what}${seen === undefined ? "" : `; ${seen()}`}`)
          )
        }, millis)
        waiting.add(waiter)
        return Effect.sync(() => {
          clearTimeout(timer)
          waiting.delete(waiter)
        })
      })
  }
}

// --- sleeps

export interface Sleeper {
  /** Waits `millis` of real time (not at all for 0 or less), or until `wakeAll`. */
  readonly sleep: (millis: number) => Promise<void>
  /** Ends every sleep now: a fake's stop, so that no timer outlives it. */
  readonly wakeAll: () => void
}

export const makeSleeper = (): Sleeper => {
  const sleeping = new Set<{ readonly timer: NodeJS.Timeout; readonly wake: () => void }>()
  return {
    sleep: (millis) =>
      new Promise<void>((resolve) => {
        if (millis <= 0) return resolve()
        const sleeper = {
          timer: setTimeout(() => {
            sleeping.delete(sleeper)
            resolve()
          }, millis),
          wake: () => resolve()
        }
        sleeping.add(sleeper)
      }),
    wakeAll: () => {
      for (const sleeper of sleeping) {
        clearTimeout(sleeper.timer)
        sleeper.wake()
      }
      sleeping.clear()
    }
  }
}

// --- deterministic numbers

/** FNV-1a, 32 bit. */
export const hash = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** mulberry32: numbers in [0, 1), the same for a seed on every run. */
export const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
