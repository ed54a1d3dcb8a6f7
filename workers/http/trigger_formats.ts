/**
 * The `http` trigger type's JSON Schemas, listed by `engine::triggers::info`
 * (`{id: "http"}`): a trigger's config, the request its handler is called
 * with, and the reply it answers. Written from what this worker takes and
 * sends (README "Triggers", "A request"); unlike the reference's, the config
 * names `middleware_function_ids`, and the request has `context`.
 *
 * @module
 */
import type { TriggerTypeFormats } from "../../engine/api.ts";
import { HTTP_METHODS } from "./config.ts";

const FUNCTION_ID = { type: "string", description: "A function id (namespace::name)" };
const STRING_MAP = { type: "object", additionalProperties: { type: "string" } };
const CHANNEL_REF = {
  type: "object",
  properties: {
    channel_id: { type: "string" },
    access_key: { type: "string" },
    direction: { type: "string", enum: ["read", "write"] },
  },
  required: ["channel_id", "access_key", "direction"],
};

/** The config of an `http` trigger. */
export const HTTP_TRIGGER_CONFIG = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "HttpTriggerConfig",
  type: "object",
  properties: {
    api_path: {
      type: "string",
      description:
        "The route: literal segments and whole-segment :name parameters (/orders/:id); a missing leading / is added",
    },
    http_method: {
      type: "string",
      enum: [...HTTP_METHODS],
      default: "GET",
      description: "Any case",
    },
    condition_function_id: {
      ...FUNCTION_ID,
      description: "Called first with the request; false or {ok: false} answers 422",
    },
    middleware_function_ids: {
      type: "array",
      items: FUNCTION_ID,
      description: "Run in this order before the handler",
    },
  },
  required: ["api_path"],
};

/** The request an `http` trigger's function (and its condition) is called with. */
export const HTTP_CALL_REQUEST = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "HttpCallRequest",
  type: "object",
  properties: {
    body: { description: "The parsed body; null when there is none" },
    headers: { ...STRING_MAP, description: "Lower-case names; repeated values joined" },
    query_params: STRING_MAP,
    path_params: STRING_MAP,
    method: { type: "string" },
    path: { type: "string", description: "The request's path, as sent" },
    trigger: {
      type: "object",
      properties: {
        type: { const: "http" },
        path: { type: "string", description: "The route's pattern" },
        method: { type: "string" },
      },
      required: ["type", "path", "method"],
    },
    context: { type: "object", description: "What middleware put there; {} otherwise" },
    request_body: { ...CHANNEL_REF, description: "The handler only: the raw request bytes" },
    response: { ...CHANNEL_REF, description: "The handler only: a streamed response" },
  },
  required: ["body", "headers", "query_params", "path_params", "method", "path", "trigger"],
};

/** The reply an `http` trigger's function answers. */
export const HTTP_CALL_RESPONSE = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "HttpCallResponse",
  type: "object",
  properties: {
    status_code: { type: "integer", minimum: 200, maximum: 599, default: 200 },
    headers: {
      oneOf: [
        {
          type: "object",
          additionalProperties: {
            oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }],
          },
        },
        { type: "array", items: { type: "string", description: '"Name: value"' } },
      ],
    },
    body: { description: "Sent as JSON, or as is: a string with the handler's content type" },
  },
};

/** What engine-http declares for the `http` type. */
export const HTTP_TRIGGER_FORMATS: TriggerTypeFormats = {
  trigger_request_format: HTTP_TRIGGER_CONFIG,
  call_request_format: HTTP_CALL_REQUEST,
  call_response_format: HTTP_CALL_RESPONSE,
};
