/**
 * A handler's JSON answer built by the handler itself, for the hot routes: the same status, media
 * type and body the platform would build from the endpoint's success schema, without checking the
 * value against the schema's filters again.
 *
 * `HttpApiBuilder` encodes a handler's value through a union of the endpoint's success schemas, each
 * wrapped in a transformation to a response that looks up the status and encoding annotations on
 * every request; and encoding checks every refinement of the value (a `UserId`'s pattern, a
 * `Timestamp`'s range, on both sides of its transformation): a sixth of a `GET /profile`'s CPU in
 * process, for values our own code made from our own rows. A handler that returns a response is
 * sent as it is.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

/**
 * The schema without its refinements (filters, brands), transformations kept, so encoding a valid
 * value gives the same output without running a filter. Union members are left to be told apart by
 * their shape (tags, null, classes), as in the schemas answered with `jsonAnswer`.
 */
export const withoutRefinements = (ast: AST.AST): AST.AST => {
  switch (ast._tag) {
    case "Refinement":
      return withoutRefinements(ast.from)
    case "Transformation":
      return new AST.Transformation(
        withoutRefinements(ast.from),
        withoutRefinements(ast.to),
        ast.transformation,
        ast.annotations
      )
    case "TypeLiteral":
      return new AST.TypeLiteral(
        ast.propertySignatures.map((p) =>
          new AST.PropertySignature(p.name, withoutRefinements(p.type), p.isOptional, p.isReadonly, p.annotations)
        ),
        ast.indexSignatures.map((i) => new AST.IndexSignature(i.parameter, withoutRefinements(i.type), i.isReadonly)),
        ast.annotations
      )
    case "TupleType":
      return new AST.TupleType(
        ast.elements.map((e) => new AST.OptionalType(withoutRefinements(e.type), e.isOptional, e.annotations)),
        ast.rest.map((r) => new AST.Type(withoutRefinements(r.type), r.annotations)),
        ast.isReadonly,
        ast.annotations
      )
    case "Union":
      return AST.Union.make(ast.types.map(withoutRefinements), ast.annotations)
    case "Suspend": {
      let inner: AST.AST | undefined
      return new AST.Suspend(() => (inner ??= withoutRefinements(ast.f())), ast.annotations)
    }
    default:
      return ast
  }
}

/**
 * `schema`'s values as JSON answers: the status its annotations give (200 unless set), its media type
 * (`application/json` unless set), the body `HttpApiBuilder` would encode, without re-validation.
 */
export const jsonAnswer = <A, I>(schema: Schema.Schema<A, I, never>) => {
  const status = HttpApiSchema.getStatusSuccessAST(schema.ast)
  const contentType = HttpApiSchema.getEncoding(schema.ast).contentType
  const encode = ParseResult.encodeSync(Schema.make<A, I, never>(withoutRefinements(schema.ast)))
  return (value: A): HttpServerResponse.HttpServerResponse =>
    HttpServerResponse.unsafeJson(encode(value), { status, contentType })
}
