/**
 * `cluster:local`'s Chroma: `ChromaServer` (the `chromadb` package's server as a supervised child)
 * in a process of its own, so the cluster supervisor starts and stops it like the other roles.
 * CHROMA_PORT and CHROMA_DATA_DIR say where; SIGTERM stops the server and then this process.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { startChroma } from "@voiceagent/runner/Knowledge/ChromaServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as path from "node:path"

const program = Effect.gen(function*() {
  const port = Number(process.env["CHROMA_PORT"] ?? "0")
  const dataDir = path.resolve(process.env["CHROMA_DATA_DIR"] ?? ".data/cluster-local/chroma")
  const chroma = yield* startChroma({ dataDir, port })
  yield* Console.log(`Chroma listening on ${chroma.url} (server pid ${yield* chroma.pid}, data in ${dataDir})`)
  return yield* Effect.never
}).pipe(Effect.scoped)

program.pipe(Effect.provide(Logger.json), NodeRuntime.runMain({ disablePrettyLogger: true }))
