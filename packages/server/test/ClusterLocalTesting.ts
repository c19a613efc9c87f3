/**
 * Helpers for tests that run processes of the platform: scratch directories, liveness, slow requests,
 * another process on the ports.
 */
import type { ClusterLocalError } from "@voiceagent/devtools/ClusterLocal"
import { bindError } from "@voiceagent/runner/Knowledge/ChromaServer"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { waitForOutput } from "./Cli.js"

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

/**
 * Live processes whose environment has `name=value` (Linux: read from `/proc/<pid>/environ`, which
 * holds what a process was started with): a variable the children of a test inherit finds them all,
 * grandchildren included.
 */
export const processesWithEnvironment = (name: string, value: string): ReadonlyArray<number> => {
  const wanted = `${name}=${value}`
  const pids: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(wanted) && isRunning(Number(entry))) {
        pids.push(Number(entry))
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return pids
}

/** A base port whose `offsets` are all free on 127.0.0.1 right now (random, tried until one is). */
export const freeBasePort = (offsets: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    for (;;) {
      const base = 20_000 + Math.floor(Math.random() * 40_000)
      const errors = yield* Effect.forEach(offsets, (offset) => bindError("127.0.0.1", base + offset))
      if (errors.every((error) => error === undefined)) return base
    }
  })

export interface Impostor {
  readonly pid: number
  /** The requests it has had, as `<port> <method> <path>`. */
  readonly requests: () => ReadonlyArray<string>
}

const IMPOSTOR = `
import http from "node:http"
import net from "node:net"
const { httpPorts, tcpPorts } = JSON.parse(process.argv[1])
let pending = httpPorts.length + tcpPorts.length
const up = () => { if (--pending === 0) console.log("impostor listening") }
for (const port of httpPorts) {
  http.createServer((request, response) => {
    console.log("request " + port + " " + request.method + " " + request.url)
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ status: "ready", service: "impostor", pid: process.pid }))
  }).listen(port, "127.0.0.1", up)
}
for (const port of tcpPorts) net.createServer((socket) => socket.destroy()).listen(port, "127.0.0.1", up)
`

/**
 * Another process on ports a test means cluster:local to use: a plain HTTP server answering 200 (a
 * JSON body with its own pid) to everything on `httpPorts`, a TCP listener closing every connection
 * on `tcpPorts`. Resumes once all listen; killed when the scope closes.
 */
export const impostor = (
  ports: { readonly httpPorts: ReadonlyArray<number>; readonly tcpPorts: ReadonlyArray<number> }
) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        ChildProcess.spawn(process.execPath, ["--input-type=module", "-e", IMPOSTOR, JSON.stringify(ports)], {
          stdio: ["ignore", "pipe", "pipe"]
        })
      ),
      (child) => killAll([child.pid!])
    )
    let output = ""
    child.stdout!.on("data", (chunk) => (output += chunk))
    child.stderr!.on("data", (chunk) => (output += chunk))
    yield* waitForOutput(child, () => output, /impostor listening/, 20_000)
    return {
      pid: child.pid!,
      requests: () => [...output.matchAll(/^request (.*)$/gm)].map((match) => match[1]!)
    } satisfies Impostor
  })

/**
 * `ClusterLocal.start` whose failure prints the end of the failed process's log (the log's directory
 * is gone with the test's scope, and the error's message only names it), then dies.
 */
export const startedOrDie = <A, R>(start: Effect.Effect<A, ClusterLocalError, R>): Effect.Effect<A, never, R> =>
  start.pipe(
    Effect.tapError((error) =>
      Effect.sync(() => console.error(`${error.message}\n--- the end of its log ---\n${error.log}`))
    ),
    Effect.orDie
  )
