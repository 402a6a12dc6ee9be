import { runAdapterConformance } from '@forge/loopback-provider/conformance';
import { expect } from 'vitest';
import { compatibleModelFor } from './test-model.test-helpers.js';

runAdapterConformance({
  name: 'OpenAI-compatible',
  createModel: (server, tuning) => compatibleModelFor(server, tuning),
  checkTextRequest(body) {
    expect(body).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": "You are the conformance test agent.",
            "role": "system",
          },
          {
            "content": "Read note alpha, then answer.",
            "role": "user",
          },
        ],
        "model": "qwen2.5-coder:7b",
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "tools": [
          {
            "function": {
              "description": "Reads a note by name.",
              "name": "read_note",
              "parameters": {
                "additionalProperties": false,
                "properties": {
                  "name": {
                    "type": "string",
                  },
                },
                "required": [
                  "name",
                ],
                "type": "object",
              },
            },
            "type": "function",
          },
        ],
      }
    `);
  },
  checkContinuationRequests(bodies) {
    expect(bodies[2]).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": "You are the conformance test agent.",
            "role": "system",
          },
          {
            "content": "Read note alpha, then answer.",
            "role": "user",
          },
          {
            "content": null,
            "reasoning_content": "I should read alpha first.",
            "role": "assistant",
            "tool_calls": [
              {
                "function": {
                  "arguments": "{"name":"alpha"}",
                  "name": "read_note",
                },
                "id": "call_1",
                "type": "function",
              },
            ],
          },
          {
            "content": "note alpha: the sky is green",
            "role": "tool",
            "tool_call_id": "call_1",
          },
          {
            "content": "Reading beta too.",
            "reasoning_content": "Now beta.",
            "role": "assistant",
            "tool_calls": [
              {
                "function": {
                  "arguments": "{"name":"beta"}",
                  "name": "read_note",
                },
                "id": "call_2",
                "type": "function",
              },
            ],
          },
          {
            "content": "note beta: the sky is green",
            "role": "tool",
            "tool_call_id": "call_2",
          },
        ],
        "model": "qwen2.5-coder:7b",
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "tools": [
          {
            "function": {
              "description": "Reads a note by name.",
              "name": "read_note",
              "parameters": {
                "additionalProperties": false,
                "properties": {
                  "name": {
                    "type": "string",
                  },
                },
                "required": [
                  "name",
                ],
                "type": "object",
              },
            },
            "type": "function",
          },
        ],
      }
    `);
  },
});
