import { assert, describe, it } from "@effect/vitest"
import { PlatformApi } from "@voiceagent/domain/Gateway"
import { routeOf } from "@voiceagent/http/Observability/Metrics"
import { matchRoute, routesOf, routeTemplate } from "@voiceagent/http/Routes"

describe("route templates", () => {
  const table = [
    routeTemplate("GET", "/api/v1/agents/:agentId"),
    routeTemplate("GET", "/api/v1/agents/defaults"),
    routeTemplate("PATCH", "/api/v1/agents/:agentId"),
    routeTemplate("POST", "/api/v1/agents"),
    routeTemplate("HEAD", "/api/v1/probe")
  ]

  it("match by method and every segment, a literal segment winning over a parameter in either order", () => {
    assert.strictEqual(matchRoute(table, "GET", "/api/v1/agents/a1")?.path, "/api/v1/agents/:agentId")
    assert.strictEqual(matchRoute(table, "GET", "/api/v1/agents/defaults")?.path, "/api/v1/agents/defaults")
    assert.strictEqual(
      matchRoute([...table].reverse(), "GET", "/api/v1/agents/defaults")?.path,
      "/api/v1/agents/defaults"
    )
    assert.strictEqual(matchRoute(table, "PATCH", "/api/v1/agents/a1")?.method, "PATCH")
    assert.isUndefined(matchRoute(table, "DELETE", "/api/v1/agents/a1"))
    assert.isUndefined(matchRoute(table, "GET", "/api/v1/agents/a1/extra"))
    assert.isUndefined(matchRoute(table, "GET", "/api/v1/agents/"))
    assert.isUndefined(matchRoute(table, "POST", "/api/v1/agent"))
  })

  it("HEAD matches GET routes and its own", () => {
    assert.strictEqual(matchRoute(table, "HEAD", "/api/v1/agents/a1")?.path, "/api/v1/agents/:agentId")
    assert.strictEqual(matchRoute(table, "HEAD", "/api/v1/probe")?.path, "/api/v1/probe")
    assert.isUndefined(matchRoute(table, "GET", "/api/v1/probe"))
  })

  it("every endpoint of the platform's API is found by its own template; metrics label unknown paths as one", () => {
    for (const route of routesOf(PlatformApi)) {
      const path = route.path.replace(/:[^/]+/g, "x1")
      const found = matchRoute(routesOf(PlatformApi), route.method, path)
      assert.isDefined(found, `${route.method} ${route.path}`)
      assert.strictEqual(routeOf(route.method, path), found!.path)
    }
    assert.strictEqual(routeOf("GET", "/api/v1/nowhere/x1/y2"), "unmatched")
  })
})
