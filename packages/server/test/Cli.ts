/** Runs the real CLI (`packages/server/src/main.ts`) as a child process, as `npm start` does. */
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))
const repoRoot = path.resolve(path.dirname(main), "../../..")

/** How production starts the CLI: compiled JavaScript (`npm run build`), plain node, no loader. */
export const COMPILED: ReadonlyArray<string> = [
  "--conditions=voiceagent-compiled",
  path.join(repoRoot, "packages/server/dist/main.js")
]

export interface CliProcess {
  readonly child: ChildProcess
  readonly output: () => string
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Effect.Effect<RegExpMatchArray>
  readonly exited: Effect.Effect<number | null>
  readonly stop: (signal?: NodeJS.Signals) => Effect.Effect<number | null>
}

/**
 * Waits until what a child process printed matches `pattern`, checking on each chunk of output; fails,
 * with the output, when the process's output ends first (it exited) or after `timeoutMs` of real time.
 * `output` must already be collecting the child's stdout and stderr (listeners added before these).
 */
export const waitForOutput = (child: ChildProcess, output: () => string, pattern: RegExp, timeoutMs: number) =>
  Effect.async<RegExpMatchArray>((resume) => {
    const matched = () => output().match(pattern)
    const cleanup = () => {
      clearTimeout(timer)
      child.stdout?.off("data", onOutput)
      child.stderr?.off("data", onOutput)
      child.off("close", onClose)
    }
    const onOutput = () => {
      const match = matched()
      if (match === null) return
      cleanup()
      resume(Effect.succeed(match))
    }
    const onClose = () => {
      cleanup()
      const match = matched()
      resume(
        match === null
          ? Effect.die(new Error(`exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${output()}`))
          : Effect.succeed(match)
      )
    }
    const timer = setTimeout(() => {
      cleanup()
      resume(Effect.die(new Error(`waited ${timeoutMs} ms for ${pattern}:\n${output()}`)))
    }, timeoutMs)
    child.stdout?.on("data", onOutput)
    child.stderr?.on("data", onOutput)
    child.on("close", onClose)
    const match = matched()
    if (match !== null) {
      cleanup()
      return resume(Effect.succeed(match))
    }
    // already gone: 'close' will not come again
    if ((child.exitCode !== null || child.signalCode !== null) && child.stdout?.readableEnded !== false) onClose()
    return Effect.sync(cleanup)
  })

/** `command`: the node arguments before the CLI's own, by default the TypeScript sources through tsx (`npm start`). */
export const spawnCli = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>,
  command: ReadonlyArray<string> = ["--import", "tsx", main]
) =>
  Effect.acquireRelease(
    Effect.sync((): CliProcess => {
      const baseEnv: Record<string, string | undefined> = { ...process.env }
      delete baseEnv["DATABASE_URL"]
      const child = spawn(process.execPath, [...command, ...args], {
        cwd: repoRoot,
        env: { ...baseEnv, ...env } as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout!.on("data", (chunk) => (output += chunk))
      child.stderr!.on("data", (chunk) => (output += chunk))
      const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      const exited = Effect.promise(() => exit)
      return {
        child,
        output: () => output,
        exited,
        waitFor: (pattern, timeoutMs = 60_000) => waitForOutput(child, () => output, pattern, timeoutMs),
        stop: (signal = "SIGTERM") =>
          Effect.suspend(() => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal)
            return exited
          })
      }
    }),
    (cli) => cli.stop("SIGKILL").pipe(Effect.timeout("10 seconds"), Effect.ignore)
  )
