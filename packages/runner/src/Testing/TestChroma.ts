/**
 * A real Chroma server for tests: the `chroma` CLI on a fresh temporary directory and a free port,
 * with the vector store adapter over it. The directory is removed when the layer's scope closes.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ChromaServer, startChroma } from "../Knowledge/ChromaServer.js"
import * as ChromaVectorStore from "../Knowledge/ChromaVectorStore.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "voiceagent-chroma-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** The server alone. */
export const server = Layer.scoped(ChromaServer, Effect.flatMap(tempDir, (dataDir) => startChroma({ dataDir })))

/** The server and the `VectorStore` over it. */
export const layer = ChromaVectorStore.layerFromServer.pipe(Layer.provideMerge(server))
