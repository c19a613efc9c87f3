/**
 * The endpoints of an `HttpApi` as a table a request can be matched against without running the
 * router: for route templates in metrics, and for the rules every request body must meet before a
 * handler runs (which media type the route reads).
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { SignedBody } from "@voiceagent/domain/HttpApis"
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import type * as AST from "effect/SchemaAST"

/**
 * What a route reads from a request body: JSON (the default), JSON it authenticates before reading
 * (`SignedBody`), a multipart upload, or a form.
 */
export type BodyKind = "json" | "signed-json" | "multipart" | "form"

export interface RouteTemplate {
  readonly method: string
  /** `/api/v1/agents/:id` */
  readonly path: string
  readonly body: BodyKind
  readonly segments: ReadonlyArray<string | null>
}

export const routeTemplate = (method: string, path: string, body: BodyKind = "json"): RouteTemplate => ({
  method,
  path,
  body,
  segments: path.split("/").slice(1).map((s) => (s.startsWith(":") ? null : s))
})

const bodyKindOf = (payload: Option.Option<{ readonly ast: AST.AST }>): BodyKind => {
  if (Option.isNone(payload)) return "json"
  const ast = payload.value.ast
  if (HttpApiSchema.getMultipart(ast) !== undefined || HttpApiSchema.getMultipartStream(ast) !== undefined) {
    return "multipart"
  }
  return HttpApiSchema.getEncoding(ast).kind === "UrlParams" ? "form" : "json"
}

/** Every endpoint of `api`. Routes without a declared body still read JSON if they read one. */
export const routesOf = (api: HttpApi.HttpApi.Any): ReadonlyArray<RouteTemplate> => {
  const found: Array<RouteTemplate> = []
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const signed = Context.getOrElse(endpoint.annotations, SignedBody, () => false)
      found.push(
        routeTemplate(endpoint.method, endpoint.path, signed ? "signed-json" : bodyKindOf(endpoint.payloadSchema))
      )
    }
  })
  return found
}

/**
 * A table's templates by `method segment-count` (a `HEAD` entry also holds the `GET` routes), in the
 * table's order: a request is matched against the few of its method and length, not all of them.
 */
const indexes = new WeakMap<ReadonlyArray<RouteTemplate>, ReadonlyMap<string, ReadonlyArray<RouteTemplate>>>()

const indexOf = (routes: ReadonlyArray<RouteTemplate>): ReadonlyMap<string, ReadonlyArray<RouteTemplate>> => {
  let index = indexes.get(routes)
  if (index === undefined) {
    const built = new Map<string, Array<RouteTemplate>>()
    const add = (key: string, template: RouteTemplate) => {
      const list = built.get(key)
      if (list === undefined) built.set(key, [template])
      else list.push(template)
    }
    for (const template of routes) {
      add(`${template.method} ${template.segments.length}`, template)
      if (template.method === "GET") add(`HEAD ${template.segments.length}`, template)
    }
    index = built
    indexes.set(routes, index)
  }
  return index
}

/**
 * The template `method path` matches, literal segments winning over parameters (as in the router);
 * `HEAD` matches `GET` routes.
 */
export const matchRoute = (
  routes: ReadonlyArray<RouteTemplate>,
  method: string,
  path: string
): RouteTemplate | undefined => {
  const segments = path.split("/").slice(1)
  const candidates = indexOf(routes).get(`${method} ${segments.length}`)
  if (candidates === undefined) return undefined
  let best: RouteTemplate | undefined
  let bestLiterals = -1
  for (const template of candidates) {
    let literals = 0
    let matches = true
    for (let i = 0; i < segments.length; i++) {
      const expected = template.segments[i]
      if (expected === null) {
        if (segments[i] === "") matches = false
      } else if (expected === segments[i]) {
        literals++
      } else {
        matches = false
      }
      if (!matches) break
    }
    if (matches && literals > bestLiterals) {
      best = template
      bestLiterals = literals
    }
  }
  return best
}
