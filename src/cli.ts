#!/usr/bin/env node
// The `a2a-bridge` executable; the commands live in cli/.
import './cli/main.js';
