/**
 * Rows are decoded, never cast. A repository reads through `SqlSchema.findAll/findOne/single` with a
 * row schema, so a renamed column or a value of another type (PGlite and `pg` disagree on some: int8,
 * timestamptz, jsonb) is a defect naming the column, not a wrong value handed on.
 *
 * The drivers already give most columns in the domain's decoded form (timestamptz as a `Date`, int8
 * as a number through `parseInt8`, uuid and text as strings), so a class's row schema checks each
 * column against its field's *type* side; a column stored in another form (a jsonb document written
 * from the encoded form, a padded `char(3)`) names its own schema in `columns`.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type { JsonObject } from "@voiceagent/domain/Json"
import { isNoSuchElementException, type NoSuchElementException } from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import { isParseError, type ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * A class built without validating its fields, from values typed already that do not come from a row
 * (the vector store's chunk metadata, a profile built from the authenticated principal). No repository
 * uses it. See docs/decisions/0032-row-decoding.md.
 */
export const fromDatabase = { disableValidation: true } as const

/** A `Schema.Class`: its fields, and its constructor. */
export interface RowClass<Self, Fields extends Schema.Struct.Fields, I> extends Schema.Schema<Self, I, never> {
  readonly fields: Fields
  new(props: Schema.Struct.Constructor<Fields>, options?: Schema.MakeOptions): Self
}

type FieldType<Fields extends Schema.Struct.Fields, K> = Schema.Struct.Type<
  Fields
>[K & keyof Schema.Struct.Type<Fields>]

/** A column's own schema: from whatever form the driver gives, to its field's type. */
type Column<A> = Schema.Schema.AnyNoContext & { readonly Type: A }

type Columns<Fields extends Schema.Struct.Fields> = {
  readonly [K in keyof Fields]?: Column<FieldType<Fields, K>>
}

const typeSide = (field: Schema.Struct.Field): Schema.Struct.Field =>
  Schema.isSchema(field) ? Schema.typeSchema(field) : field

/**
 * For a class built inside a row schema's `decode`, from fields that schema has just validated:
 * validating them again would add nothing.
 */
export const validated = { disableValidation: true } as const

/**
 * The row schema of a domain class: each column decoded as its field's type side (or the schema
 * given in `columns`), then the class built from them. Columns the class has no field for are ignored.
 */
export const of = <Self, Fields extends Schema.Struct.Fields, I>(
  cls: RowClass<Self, Fields, I>,
  columns: Columns<Fields> = {}
): Schema.Schema<Self, unknown> => {
  const fields: Record<string, Schema.Struct.Field> = {}
  for (const [name, field] of Object.entries(cls.fields)) {
    fields[name] = (columns as Record<string, Schema.Struct.Field | undefined>)[name] ?? typeSide(field)
  }
  return Schema.transform(Schema.Struct(fields), Schema.typeSchema(cls), {
    strict: false,
    // the row's fields are the class's, each decoded
    decode: (row) => new cls(row as Schema.Struct.Constructor<Fields>, validated),
    encode: (value) => value
  }) as unknown as Schema.Schema<Self, unknown>
}

/**
 * A jsonb column holding an object (`metadata`): its shape is checked, not the rules a request's
 * object must meet to be written (its size, its depth), which may have changed since.
 */
export const JsonObjectColumn: Schema.Schema<JsonObject> = Schema.declare(
  (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u),
  { identifier: "JsonObjectColumn", description: "a JSON object" }
)

/**
 * An integer that PostgreSQL computes as `numeric` (the `sum` of a `bigint` column): the drivers give
 * it as a string. Integers a driver already parsed (`int8` through `parseInt8`) are taken as they are.
 */
export const NumericInt = Schema.Union(Schema.Int, Schema.compose(Schema.NumberFromString, Schema.Int))

/** `Schema.Void` as a request: the query's parameters are in its closure. */
export const NoRequest = Schema.Void

/** A row that does not decode means the code and the schema disagree: a defect naming the column. */
const dieOnDecode = <A, E, R>(effect: Effect.Effect<A, E | ParseError | NoSuchElementException, R>) =>
  Effect.catchIf(
    effect,
    (e): e is ParseError | NoSuchElementException => isParseError(e) || isNoSuchElementException(e),
    Effect.die
  ) as Effect.Effect<A, Exclude<E, ParseError | NoSuchElementException>, R>

/** One row, decoded; `None` when there is none. The query's own errors (a `SqlError`) are left to the caller. */
export const findOne = <A, I, E>(
  Result: Schema.Schema<A, I>,
  query: Effect.Effect<ReadonlyArray<unknown>, E>
): Effect.Effect<Option.Option<A>, E> =>
  dieOnDecode(SqlSchema.findOne({ Request: NoRequest, Result, execute: () => query })(undefined))

/** Every row, decoded. The query's own errors are left to the caller. */
export const findAll = <A, I, E>(
  Result: Schema.Schema<A, I>,
  query: Effect.Effect<ReadonlyArray<unknown>, E>
): Effect.Effect<ReadonlyArray<A>, E> =>
  dieOnDecode(SqlSchema.findAll({ Request: NoRequest, Result, execute: () => query })(undefined))

/**
 * Exactly one row (an `INSERT … RETURNING`, a count), decoded;
 * none is a defect. The query's own errors are left to the caller.
 */
export const single = <A, I, E>(
  Result: Schema.Schema<A, I>,
  query: Effect.Effect<ReadonlyArray<unknown>, E>
): Effect.Effect<A, E> => dieOnDecode(SqlSchema.single({ Request: NoRequest, Result, execute: () => query })(undefined))

/** A `count(*) AS total` row. */
export const Count = Schema.Struct({ total: Schema.NonNegativeInt })

/**
 * One page of a list: its rows (the query applies the route's own order, `LIMIT` and `OFFSET`) and the
 * total count of the same filter (`SELECT count(*) AS total …`), both decoded.
 */
export const page = <A, I>(
  Result: Schema.Schema<A, I>,
  rows: Effect.Effect<ReadonlyArray<unknown>, SqlError>,
  count: Effect.Effect<ReadonlyArray<unknown>, SqlError>
): Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly total: number }> =>
  Effect.all([findAll(Result, rows), single(Count, count)]).pipe(
    Effect.map(([items, { total }]) => ({ items, total })),
    Effect.orDie
  )
