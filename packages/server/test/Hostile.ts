/** Fixtures for tests that send hostile requests: raw sockets, and "was anything written?". */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as net from "node:net"

/**
 * Rows in every table of the platform's schema (the cluster's own tables and bookkeeping that
 * reads write, such as `api_keys.last_used_at`, are left out: only row counts are compared).
 */
export const tableCounts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
      AND table_name NOT LIKE 'cluster_%' AND table_name NOT LIKE 'effect_%' AND table_name <> 'migrations'
    ORDER BY table_name
  `
  // one statement for every table: a fuzz run reads the counts around each of its requests
  const [row] = yield* sql.unsafe<Record<string, number>>(
    `SELECT ${
      tables.map((_, i) => `(SELECT count(*)::int FROM "${tables[i]!.name.replaceAll("\"", "\"\"")}") AS t${i}`).join(
        ", "
      )
    }`
  )
  const counts: Record<string, number> = {}
  tables.forEach(({ name }, i) => (counts[name] = Number(row![`t${i}`])))
  return counts
}).pipe(Effect.orDie)

export interface RawAnswer {
  /** The status line's code, or undefined when the connection closed without an answer. */
  readonly status: number | undefined
  readonly head: string
  readonly body: string
  /** Milliseconds from the first byte sent to the connection's end. */
  readonly elapsedMs: number
}

/**
 * Sends `parts` over a raw TCP connection (each part after `gapMs`, or all at once), then waits for
 * the server to answer and close, or for `stopAfterMs` of silence after the last part, whichever
 * comes first; `endAfterSending` half-closes the connection once everything is sent.
 */
export const rawRequest = (
  url: string,
  parts: ReadonlyArray<string | Uint8Array>,
  options: { readonly gapMs?: number; readonly endAfterSending?: boolean; readonly stopAfterMs?: number } = {}
): Effect.Effect<RawAnswer> =>
  Effect.async<RawAnswer>((resume) => {
    const { hostname, port } = new URL(url)
    const socket = net.connect(Number(port), hostname)
    const chunks: Array<Buffer> = []
    const started = Date.now()
    let done = false
    let timer: NodeJS.Timeout | undefined
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      const text = Buffer.concat(chunks).toString("utf8")
      const split = text.indexOf("\r\n\r\n")
      const head = split === -1 ? text : text.slice(0, split)
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head)
      resume(Effect.succeed({
        status: match === null ? undefined : Number(match[1]),
        head,
        body: split === -1 ? "" : dechunk(head, text.slice(split + 4)),
        elapsedMs: Date.now() - started
      }))
    }
    socket.on("data", (chunk) => {
      chunks.push(chunk)
      const text = Buffer.concat(chunks).toString("utf8")
      if (complete(text)) finish()
    })
    socket.on("close", finish)
    socket.on("error", finish)
    socket.on("connect", async () => {
      for (const part of parts) {
        if (done) return
        socket.write(part)
        if (options.gapMs !== undefined) await new Promise((r) => setTimeout(r, options.gapMs))
      }
      if (options.endAfterSending === true) socket.end()
      if (options.stopAfterMs !== undefined) timer = setTimeout(finish, options.stopAfterMs)
    })
    return Effect.sync(() => socket.destroy())
  })

/** Whether `text` holds a whole response (by Content-Length or the last chunk). */
const complete = (text: string): boolean => {
  const split = text.indexOf("\r\n\r\n")
  if (split === -1) return false
  const head = text.slice(0, split).toLowerCase()
  const length = /\r\ncontent-length: *(\d+)/.exec(head)
  if (length !== null) return Buffer.byteLength(text.slice(split + 4)) >= Number(length[1])
  if (head.includes("transfer-encoding: chunked")) return text.endsWith("\r\n0\r\n\r\n")
  return false
}

const dechunk = (head: string, body: string): string => {
  if (!/transfer-encoding: *chunked/i.test(head)) return body
  let out = ""
  let rest = body
  while (rest.length > 0) {
    const eol = rest.indexOf("\r\n")
    const size = parseInt(rest.slice(0, eol), 16)
    if (!(size > 0)) break
    out += rest.slice(eol + 2, eol + 2 + size)
    rest = rest.slice(eol + 2 + size + 2)
  }
  return out
}

/** The head of a request to `url`'s origin. */
export const requestHead = (method: string, url: string, headers: Record<string, string>): string => {
  const { pathname, search, host } = new URL(url)
  return `${method} ${pathname}${search} HTTP/1.1\r\nhost: ${host}\r\n` +
    Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n"
}
