import { defineContractSuite } from './suite.ts';
import { createNodeHarness } from './node-harness.ts';

defineContractSuite('node handler over fake-indexeddb', () => createNodeHarness());
