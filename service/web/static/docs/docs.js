// Swagger UI on the service's own OpenAPI document. A file, not an inline script, so the
// page's Content-Security-Policy can allow scripts from this origin only.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true, // /docs#/games/getGame opens that operation
  // "Try it out" on every operation; requests go to this origin (the document names no
  // server), with the seat token given under "Authorize" as `Authorization: Bearer …`
  supportedSubmitMethods: ["get", "put", "post", "delete", "options", "head", "patch", "trace"],
  // the default would show a badge image from validator.swagger.io: nothing from elsewhere
  validatorUrl: null,
  // a seat token stays in this page's memory only: a reload forgets it (/play keeps its own)
  persistAuthorization: false,
  displayRequestDuration: true,
});
