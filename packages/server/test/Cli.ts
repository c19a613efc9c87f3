/** Runs the real CLI (`packages/server/src/main.ts`) as a child process, as `npm start` does. */
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))
const repoRoot = path.resolve(path.dirname(main), "../../..")

export interface CliProcess {
  readonly child: ChildProcess
  readonly output: () => string
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Effect.Effect<RegExpMatchArray>
  readonly exited: Effect.Effect<number | null>
  readonly stop: (signal?: NodeJS.Signals) => Effect.Effect<number | null>
}

/**
 * Polls what a child process printed until `pattern` matches; fails, with the output, when the process
 * exits first or `timeoutMs` passes.
 */
export const waitForOutput = (child: ChildProcess, output: () => string, pattern: RegExp, timeoutMs: number) =>
  Effect.promise(() =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const started = Date.now()
      const poll = () => {
        const match = output().match(pattern)
        if (match) return resolve(match)
        if (child.exitCode !== null || child.signalCode !== null) {
          return reject(new Error(`exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${output()}`))
        }
        if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${pattern}:\n${output()}`))
        setTimeout(poll, 50)
      }
      poll()
    })
  )

export const spawnCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined>) =>
  Effect.acquireRelease(
    Effect.sync((): CliProcess => {
      const baseEnv: Record<string, string | undefined> = { ...process.env }
      delete baseEnv["DATABASE_URL"]
      const child = spawn(process.execPath, ["--import", "tsx", main, ...args], {
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
