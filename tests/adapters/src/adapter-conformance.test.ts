import { runAdapterConformance } from '@forge/loopback-provider/conformance';
import { ADAPTER_TABLE } from './adapter-table.js';

for (const target of ADAPTER_TABLE) runAdapterConformance(target);
