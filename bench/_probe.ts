import { corpus } from "./lib/KnowledgeCorpus.js"
import { makeOfflineEmbedder } from "@voiceagent/runner/Knowledge/OfflineEmbedder"
import * as ChromaVectorStore from "@voiceagent/runner/Knowledge/ChromaVectorStore"
import { startChroma } from "@voiceagent/runner/Knowledge/ChromaServer"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
const docs = corpus(3000)
const e = makeOfflineEmbedder()
await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "probe-"))
  const chroma = yield* startChroma({ dataDir: dir })
  const store = yield* ChromaVectorStore.make({ url: chroma.url })
  for (let round = 0; round < 5; round++) {
    const name = `coll${round}`
    yield* store.ensureCollection(name)
    let up = 0
    const t = performance.now()
    for (const [d, doc] of docs.entries()) {
      for (let s = 0; s < doc.chunks.length; s += 64) {
        const batch = doc.chunks.slice(s, s + 64)
        const v = yield* e.embed(batch)
        const a = performance.now()
        yield* store.upsert(name, batch.map((text, i) => ({ id: `d${d}:${s + i}`, embedding: v[i]!, text, metadata: { documentId: `d${d}`, chunkIndex: s + i } })))
        up += performance.now() - a
      }
    }
    console.log(round, "total s", ((performance.now() - t) / 1000).toFixed(2), "upsert s", (up / 1000).toFixed(2))
    if (round % 2 === 1) yield* store.dropCollection(name)
  }
})))
