/** Helpers for tests that run processes of the platform: scratch directories, liveness, slow requests. */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

/** A temporary directory for the scope's lifetime (logs, data), removed afterwards. */
export const scratchDirectory = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), prefix))),
    (directory) => Effect.sync(() => fs.rmSync(directory, { recursive: true, force: true }))
  )

/** Alive and not a zombie. */
export const isRunning = (pid: number): boolean => {
  try {
    return !/\) [ZX] /.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

/** Sends SIGKILL to each pid still running (a test's last resort). */
export const killAll = (pids: Iterable<number>) =>
  Effect.sync(() => {
    for (const pid of pids) {
      try {
        if (isRunning(pid)) process.kill(pid, "SIGKILL")
      } catch {
        // gone
      }
    }
  })

export interface Answer {
  readonly status: number
  /** The `connection` header: `close` when the server is stopping. */
  readonly connection: string | undefined
  readonly body: any
}

export interface SlowRequest {
  /** Sends the rest of the body. */
  readonly finish: Effect.Effect<void>
  /** The answer, or the error code if the connection failed. */
  readonly answer: Effect.Effect<Answer | { readonly error: string }>
}

/**
 * A request whose body arrives in two parts: the headers and the first half now, the rest on
 * `finish`. In between, the server has the request in flight: its handler runs, reading the body.
 */
export const slowRequest = (
  method: string,
  url: string,
  options: { readonly json: unknown; readonly token?: string }
): Effect.Effect<SlowRequest> =>
  Effect.sync(() => {
    const body = Buffer.from(JSON.stringify(options.json))
    const half = Math.floor(body.length / 2)
    let resolveAnswer: (answer: Answer | { readonly error: string }) => void = () => undefined
    const answered = new Promise<Answer | { readonly error: string }>((resolve) => (resolveAnswer = resolve))
    // a keep-alive connection, as clients and proxies keep them: the answer must close it
    const agent = new http.Agent({ keepAlive: true })
    const request = http.request(url, {
      method,
      agent,
      headers: {
        "content-type": "application/json",
        "content-length": String(body.length),
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` })
      }
    }, (response) => {
      let text = ""
      response.setEncoding("utf8").on("data", (chunk) => (text += chunk))
      response.on("end", () => {
        let parsed: unknown = text
        try {
          parsed = JSON.parse(text)
        } catch {
          // not JSON
        }
        resolveAnswer({ status: response.statusCode!, connection: response.headers.connection, body: parsed })
      })
      response.on("error", (e: NodeJS.ErrnoException) => resolveAnswer({ error: e.code ?? e.message }))
    })
    request.on("error", (e: NodeJS.ErrnoException) => resolveAnswer({ error: e.code ?? e.message }))
    request.flushHeaders()
    request.write(body.subarray(0, half))
    return {
      finish: Effect.sync(() => void request.end(body.subarray(half))),
      answer: Effect.promise(() => answered).pipe(Effect.ensuring(Effect.sync(() => agent.destroy())))
    }
  })

/** Whether a new TCP connection to the port is refused. */
export const connectionRefused = (port: number, host = "127.0.0.1") =>
  Effect.async<boolean>((resume) => {
    const socket = net.connect(port, host)
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(false))
    })
    socket.once("error", (e: NodeJS.ErrnoException) => resume(Effect.succeed(e.code === "ECONNREFUSED")))
  })
