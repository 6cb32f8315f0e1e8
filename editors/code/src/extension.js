// Starts `sinew lsp` for .bpg files (docs/editors.md). Plain JavaScript: no build step.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("sinew");
  const command = config.get("path") || "sinew";
  const assets = config.get("assets");
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "sinew",
    "Sinew",
    { run: server, debug: server },
    {
      documentSelector: [{ scheme: "file", language: "bpg" }],
      initializationOptions: assets ? { assets } : {},
      synchronize: {
        // The catalog follows the assets as `sinew watch` does.
        fileEvents: vscode.workspace.createFileSystemWatcher("**/*.animseq"),
      },
    }
  );
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
