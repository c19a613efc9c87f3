/**
 * Named points in the runtime where a test can stop a process at an exact moment (`FAILPOINTS`), to
 * kill it there: the failover tests stop a runner between a call's start and the campaign's record
 * of the dial, the narrowest window a crash can fall in. Unset (as in production), every point is
 * a no-op costing one lookup.
 *
 * `FAILPOINTS=<name>=pause@<n>:<token file>[,…]`: the `n`-th time this process reaches `name`, it
 * creates the token file (only one process of a cluster can: whichever gets there first) and, if
 * it did, writes `failpoint <name> paused (pid …)` to stderr and waits forever in that fiber.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"

export interface FailpointSpec {
  readonly name: string
  readonly at: number
  readonly token: string
}

/** The `FAILPOINTS` value, or why it is not one. */
export const parseFailpoints = (value: string): ReadonlyArray<FailpointSpec> | string => {
  const specs: Array<FailpointSpec> = []
  for (const part of value.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const match = /^([\w.-]+)=pause@(\d+):(.+)$/.exec(part)
    if (match === null) return `"${part}" is not <name>=pause@<n>:<token file>`
    specs.push({ name: match[1]!, at: Number(match[2]), token: match[3]! })
  }
  return specs
}

export class Failpoints extends Context.Reference<Failpoints>()("Runner/Failpoints", {
  defaultValue: (): ReadonlyArray<FailpointSpec> => []
}) {}

const hits = new Map<string, number>()

/**
 * Reaching the point `name`: pauses here if `FAILPOINTS` says so (see above). A name that costs work
 * to know (it says where the work goes) is an Effect, run only when some failpoint is set.
 */
export const failpoint = <R>(point: string | Effect.Effect<string, never, R>): Effect.Effect<void, never, R> =>
  Effect.flatMap(Failpoints, (specs) => {
    if (specs.length === 0) return Effect.void
    return Effect.flatMap(typeof point === "string" ? Effect.succeed(point) : point, (name) => hit(specs, name))
  })

const hit = (specs: ReadonlyArray<FailpointSpec>, name: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const spec = specs.find((s) => s.name === name)
    if (spec === undefined) return Effect.void
    const hit = (hits.get(name) ?? 0) + 1
    hits.set(name, hit)
    if (hit !== spec.at) return Effect.void
    // written whole under another name, then linked into place: a test that sees the token can read the pid
    // (a plain exclusive write is seen empty in between), and of processes racing for it one wins
    const draft = `${spec.token}.${process.pid}`
    try {
      fs.writeFileSync(draft, String(process.pid))
      fs.linkSync(draft, spec.token)
    } catch {
      return Effect.void
    } finally {
      fs.rmSync(draft, { force: true })
    }
    process.stderr.write(`failpoint ${name} paused (pid ${process.pid})\n`)
    return Effect.never
  })
