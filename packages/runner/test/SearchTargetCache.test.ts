import { assert, describe, it } from "@effect/vitest"
import type { KnowledgeBaseId } from "@voiceagent/domain/Ids"
import type { SearchTarget } from "@voiceagent/runner/Knowledge/KnowledgeBasesRepo"
import { SearchTargetCache } from "@voiceagent/runner/Knowledge/SearchTargetCache"

const target = (id: string, collection = `c_${id}`): SearchTarget => ({
  id: id as KnowledgeBaseId,
  collection,
  embedder: "offline-hash-v1",
  threshold: 0.2,
  removedDocumentIds: []
})

describe("SearchTargetCache", () => {
  it("keeps a target for its time to live, no longer", () => {
    const cache = new SearchTargetCache(2_000)
    cache.keep("t", target("kb"), 1_000, cache.generation)
    assert.strictEqual(cache.find("t", "kb", 2_999)?.collection, "c_kb")
    assert.isUndefined(cache.find("t", "kb", 3_000))
    assert.strictEqual(cache.size, 0)
  })

  it("answers only the tenant that read it", () => {
    const cache = new SearchTargetCache(2_000)
    cache.keep("t1", target("kb"), 0, cache.generation)
    assert.isUndefined(cache.find("t2", "kb", 1))
    assert.isDefined(cache.find("t1", "kb", 1))
  })

  it("forgets a changed knowledge base at once, and only it", () => {
    const cache = new SearchTargetCache(2_000)
    cache.keep("t", target("a"), 0, cache.generation)
    cache.keep("t", target("b"), 0, cache.generation)
    cache.forget("a")
    assert.isUndefined(cache.find("t", "a", 1))
    assert.isDefined(cache.find("t", "b", 1))
  })

  it("does not keep a target read before a change: the change would be undone for the time to live", () => {
    const cache = new SearchTargetCache(2_000)
    const readIn = cache.generation
    // the threshold is edited (and forgotten) while the old row is on its way back from the database
    cache.forget("kb")
    cache.keep("t", target("kb"), 0, readIn)
    assert.isUndefined(cache.find("t", "kb", 1))
    cache.keep("t", target("kb"), 0, cache.generation)
    assert.isDefined(cache.find("t", "kb", 1))
  })

  it("holds at most its capacity, the oldest first out", () => {
    const cache = new SearchTargetCache(2_000, 2)
    cache.keep("t", target("a"), 0, cache.generation)
    cache.keep("t", target("b"), 0, cache.generation)
    cache.keep("t", target("c"), 0, cache.generation)
    assert.strictEqual(cache.size, 2)
    assert.isUndefined(cache.find("t", "a", 1))
    assert.isDefined(cache.find("t", "c", 1))
  })
})
