/** Starts the fake OpenAI-compatible server once for the node tests and hands them its URL. */
import type { TestProject } from "vitest/node";
import { startFakeOpenAI } from "./fake-openai";

declare module "vitest" {
  export interface ProvidedContext {
    fakeOpenAIUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const fake = await startFakeOpenAI();
  project.provide("fakeOpenAIUrl", fake.url);
  return () => fake.close();
}
