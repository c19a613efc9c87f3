/**
 * The embedders this node offers, by id, and the one new knowledge bases get. A knowledge base
 * records the id of the embedder its vectors were made with; a node that does not offer that id
 * cannot query or ingest it (and says so) rather than mixing vectors of two models.
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Embedder } from "../Ports/Embedder.js"
import { makeOfflineEmbedder } from "./OfflineEmbedder.js"

export interface EmbeddersShape {
  readonly default: Embedder
  readonly get: (id: string) => Option.Option<Embedder>
  readonly ids: ReadonlyArray<string>
}

export const makeEmbedders = (embedders: ReadonlyArray<Embedder>, defaultId?: string): EmbeddersShape => {
  const byId = new Map(embedders.map((e) => [e.id, e]))
  const fallback = embedders[0]
  if (fallback === undefined) throw new Error("makeEmbedders: at least one embedder")
  const chosen = defaultId === undefined ? fallback : byId.get(defaultId)
  if (chosen === undefined) throw new Error(`makeEmbedders: no embedder ${defaultId}`)
  return { default: chosen, get: (id) => Option.fromNullable(byId.get(id)), ids: [...byId.keys()] }
}

export class Embedders extends Context.Tag("Knowledge/Embedders")<Embedders, EmbeddersShape>() {
  static readonly layer = (embedders: ReadonlyArray<Embedder>, defaultId?: string): Layer.Layer<Embedders> =>
    Layer.sync(Embedders, () => makeEmbedders(embedders, defaultId))

  /** The built-in offline embedder only. */
  static readonly offline: Layer.Layer<Embedders> = Embedders.layer([makeOfflineEmbedder()])
}
