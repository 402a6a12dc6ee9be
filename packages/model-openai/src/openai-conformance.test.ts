import { runAdapterConformance } from '@forge/loopback-provider/conformance';
import { expect } from 'vitest';
import { openAIModelFor } from './test-model.test-helpers.js';

runAdapterConformance({
  name: 'OpenAI Responses',
  createModel: (server, tuning) => openAIModelFor(server, tuning),
  checkTextRequest(body) {
    expect(body).toMatchInlineSnapshot(`
      {
        "include": [
          "reasoning.encrypted_content",
        ],
        "input": [
          {
            "content": "You are the conformance test agent.",
            "role": "developer",
          },
          {
            "content": [
              {
                "text": "Read note alpha, then answer.",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "gpt-5.1",
        "prompt_cache_key": "forge-fa0cf22c97102b387d9ca01b8086e4e3c39d781f2b2cef08",
        "store": false,
        "stream": true,
        "tools": [
          {
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
            "strict": false,
            "type": "function",
          },
        ],
      }
    `);
  },
  checkContinuationRequests(bodies) {
    expect(bodies[2]).toMatchInlineSnapshot(`
      {
        "include": [
          "reasoning.encrypted_content",
        ],
        "input": [
          {
            "content": "You are the conformance test agent.",
            "role": "developer",
          },
          {
            "content": [
              {
                "text": "Read note alpha, then answer.",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
          {
            "encrypted_content": "enc-step-1",
            "id": "rs_1_0",
            "summary": [
              {
                "text": "I should read alpha first.",
                "type": "summary_text",
              },
            ],
            "type": "reasoning",
          },
          {
            "arguments": "{"name":"alpha"}",
            "call_id": "call_1",
            "name": "read_note",
            "type": "function_call",
          },
          {
            "call_id": "call_1",
            "output": "note alpha: the sky is green",
            "type": "function_call_output",
          },
          {
            "encrypted_content": "enc-step-2",
            "id": "rs_2_0",
            "summary": [
              {
                "text": "Now beta.",
                "type": "summary_text",
              },
            ],
            "type": "reasoning",
          },
          {
            "content": "Reading beta too.",
            "role": "assistant",
          },
          {
            "arguments": "{"name":"beta"}",
            "call_id": "call_2",
            "name": "read_note",
            "type": "function_call",
          },
          {
            "call_id": "call_2",
            "output": "note beta: the sky is green",
            "type": "function_call_output",
          },
        ],
        "model": "gpt-5.1",
        "prompt_cache_key": "forge-fa0cf22c97102b387d9ca01b8086e4e3c39d781f2b2cef08",
        "store": false,
        "stream": true,
        "tools": [
          {
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
            "strict": false,
            "type": "function",
          },
        ],
      }
    `);
  },
});
