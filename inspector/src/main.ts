/** @module The inspector page: environments, a session driven by hand, and its live view. */

import { applyAccess } from "./access";
import { AgentView } from "./agent-view";
import { api, type Credentials, sessionApi } from "./api";
import { $, fill, h } from "./dom";
import { type EnvironmentInfo, environmentCards } from "./environments";
import { guarded, showError } from "./errors";
import { connectLive, type Frame, type Live } from "./live";
import { RewardPlot } from "./reward-plot";
import { type SchemaForm, schemaForm } from "./schema-form";
import { copyShared, linkedSession, resetShare, share } from "./share";
import { onSplit, onTaskIndex, renderSplits } from "./split-picker";
import { StateView } from "./state-view";
import { StoreView } from "./store-view";
import { appendEvent, appendNote, onBranch } from "./timeline";
import { forgetHistory, loadHistory } from "./timeline-history";
import { Transcript } from "./transcript";
import { TreeView } from "./tree-view";

interface Status {
  session_id: string;
  episode: number;
  steps: number;
  reward: number;
  return: number;
  done: boolean;
  truncated: boolean;
}

let environments: EnvironmentInfo[] = [];
let session: (Credentials & { environment: string }) | undefined;
let live: Live | undefined;
/** Set per session shown until its socket's first snapshot says where the log's history ends. */
let historyPending = false;
let toolForm: SchemaForm | undefined;
let taskForm: SchemaForm | undefined;
const state = new StateView($("#state"), (e) => showError(e));
const transcript = new Transcript((e) => showError(e));
const agentView = new AgentView();
const store = new StoreView((e) => showError(e));
const tree = new TreeView();
const plot = new RewardPlot((e) => showError(e));

// ---- environments --------------------------------------------------------

const renderEnvironments = (): void => {
  fill($("#env-list"), ...environmentCards(environments));
  const select = $<HTMLSelectElement>("#create-env");
  fill(
    select,
    ...environments.map((e) => h("option", { value: e.name }, e.name))
  );
  renderTaskForm();
};

const renderTaskForm = (): void => {
  const env = selectedEnv();
  const schema = env?.task_schema;
  taskForm =
    schema && schema.type === "object" ? schemaForm(schema) : undefined;
  fill($("#task-form"), taskForm?.element);
  renderSplits(env);
};

const selectedEnv = (): EnvironmentInfo | undefined =>
  environments.find(
    (e) => e.name === $<HTMLSelectElement>("#create-env").value
  );

// ---- session ---------------------------------------------------------------

const renderStatus = (s: Status): void => {
  plot.setStatus(s);
  $("#episode").textContent = String(s.episode);
  $("#steps").textContent = String(s.steps);
  $("#reward").textContent = String(s.reward);
  $("#return").textContent = String(s.return);
  $("#done").textContent = s.done ? "yes" : s.truncated ? "truncated" : "no";
  const hint = $("#step-hint");
  hint.textContent =
    s.episode === 0
      ? "No episode yet: press Reset (above) before Step."
      : s.done || s.truncated
        ? "This episode is over: press Reset to start the next."
        : "";
  hint.hidden = hint.textContent === "";
};

const refreshStatus = async (): Promise<void> => {
  if (session) renderStatus(await sessionApi<Status>(session, "GET", ""));
};

const renderTools = (): void => {
  const env = environments.find((e) => e.name === session?.environment);
  const select = $<HTMLSelectElement>("#tool");
  fill(
    select,
    ...(env?.tools ?? []).map((t) =>
      h("option", { value: t.function.name }, t.function.name)
    )
  );
  renderToolForm();
};

const renderToolForm = (): void => {
  const env = environments.find((e) => e.name === session?.environment);
  const tool = env?.tools.find(
    (t) => t.function.name === $<HTMLSelectElement>("#tool").value
  );
  toolForm = tool ? schemaForm(tool.function.parameters) : undefined;
  fill($("#tool-form"), toolForm?.element);
};

/**
 * Shows session `s`. A link's session keeps its `#session=…&token=…` in
 * the address bar, so a reload shows it again; any other clears a link's,
 * and no token of its own is put there.
 */
const open = async (s: Credentials, fromLink = false): Promise<void> => {
  const status = await sessionApi<Status & { environment: string }>(
    s,
    "GET",
    ""
  );
  live?.close();
  session = { ...s, environment: status.environment };
  if (!fromLink && linkedSession())
    history.replaceState(null, "", location.pathname + location.search);
  applyAccess(s.token);
  resetShare();
  $("#current").hidden = false;
  $("#act").hidden = false;
  $("#live").hidden = false;
  $("#session-id").textContent = s.id;
  $("#session-id").title = s.id;
  $("#session-env").textContent = status.environment;
  $("#session-token").textContent = s.token;
  // The attach fields hold the session shown (made here, forked or
  // attached), so its id and token can be copied or attached again later.
  $<HTMLInputElement>("#attach-id").value = s.id;
  $<HTMLInputElement>("#attach-token").value = s.token;
  $("#forked-from").hidden = true;
  renderStatus(status);
  renderTools();
  const env = environments.find((e) => e.name === status.environment);
  tree.show(env?.tree);
  $("#tree-section").hidden = env?.tree === undefined;
  agentView.setAgents(env?.agents);
  fill($("#timeline"));
  forgetHistory();
  historyPending = true;
  state.attach(s);
  store.attach(s);
  plot.setMetrics(env?.reward_metrics ?? []);
  plot.attach(s);
  // The transcript loads beside the socket, not before it: the state and
  // the store show while a long transcript's newest messages are read.
  transcript.attach(s);
  live = connectLive(s, {
    onFrame,
    onStatus: (status, detail) => {
      const badge = $("#conn");
      badge.textContent = detail ? `${status}: ${detail}` : `live: ${status}`;
      badge.className = `badge ${status}`;
    }
  });
};

const onFrame = (frame: Frame): void => {
  plot.onFrame(frame);
  if (frame.type === "session.snapshot") {
    // A snapshot past the read budget is cut: the rest of the state and of
    // the keys is read over HTTP from its cursors.
    state.snapshot(
      frame.state as Record<string, unknown>,
      frame.state_next_cursor as string | undefined
    );
    store.setKeys(
      frame.keys as never,
      frame.keys_next_cursor as string | undefined
    );
    renderStatus(frame.status as Status);
    // The socket delivers what comes after the snapshot; what came before
    // it (steps taken before the page opened) is read from the log.
    if (historyPending && session) {
      historyPending = false;
      loadHistory(session, Number(frame.last_seq), Number(frame.oldest_seq));
    }
    // Messages sent while no socket was open (before it, or in a gap the
    // log no longer held) come from /messages.
    transcript.catchUp();
    return;
  }
  if (frame.type === "resume.expired") {
    appendNote(
      `events after #${String(frame.after)} are no longer kept (oldest #${String(frame.oldest_seq)}): resynced from a snapshot`
    );
    return;
  }
  if (frame.seq === undefined) return;
  appendEvent(frame);
  if (frame.type === "state.changed") {
    state.change(String(frame.key), frame.value);
  } else if (frame.type === "message") {
    transcript.add(frame.message, Number(frame.index));
  } else if (frame.type === "reset") {
    transcript.reset();
    store.setKeys([]);
    state.reload();
  }
  store.onEvent(frame.type, frame);
  tree.onEvent(frame);
  if (frame.type === "step" || frame.type === "reset") {
    void refreshStatus().catch(showError);
  }
};

const showObservations = (value: unknown): void => {
  $("#observations").textContent = JSON.stringify(value, null, 1);
};

// ---- wiring -----------------------------------------------------------------

$("#create-env").addEventListener("change", renderTaskForm);
$("#task-index").addEventListener("input", () => onTaskIndex(selectedEnv()));
$("#task-split").addEventListener("change", () => onSplit(selectedEnv()));
$("#tool").addEventListener("change", renderToolForm);

$("#create-form").addEventListener(
  "submit",
  guarded(async () => {
    const environment = $<HTMLSelectElement>("#create-env").value;
    const index = $<HTMLInputElement>("#task-index").value;
    const body: Record<string, unknown> = { environment };
    const split = $<HTMLSelectElement>("#task-split").value;
    if (index !== "") {
      body.task_index = Number(index);
      if (split !== "") body.split = split;
    } else if (taskForm) {
      const task = taskForm.read();
      if (!task.ok) throw new Error(task.message);
      body.task = task.value;
    }
    const created = await api<{ session_id: string; token: string }>(
      "POST",
      "/v1/sessions",
      { body }
    );
    await open({ id: created.session_id, token: created.token });
  })
);

$("#attach-form").addEventListener(
  "submit",
  guarded(async () => {
    await open({
      id: $<HTMLInputElement>("#attach-id").value.trim(),
      token: $<HTMLInputElement>("#attach-token").value.trim()
    });
  })
);

$("#reset").addEventListener(
  "click",
  guarded(async () => {
    if (!session) return;
    showObservations(await sessionApi(session, "POST", "/reset", {}));
    await refreshStatus();
  })
);

/**
 * Copies the session and opens the copy; the source's id and token stay on
 * the page, so it can be attached again.
 */
const forkAndOpen = async (step?: number) => {
  if (!session) return;
  const source = session;
  const forked = await sessionApi<{
    seq: number;
    sessions: { session_id: string; token: string }[];
  }>(
    source,
    "POST",
    "/fork",
    step === undefined ? { count: 1 } : { count: 1, step }
  );
  const copy = forked.sessions[0]!;
  await open({ id: copy.session_id, token: copy.token });
  const from = $("#forked-from");
  fill(
    from,
    "A copy of ",
    h("code", {}, source.id),
    step === undefined
      ? ` as of its event ${forked.seq}. `
      : ` as it stood right after step ${step} (its event ${forked.seq}). `,
    h(
      "button",
      {
        type: "button",
        onclick: guarded(() => open({ id: source.id, token: source.token }))
      },
      "Back to the source"
    )
  );
  from.hidden = false;
};

$("#fork").addEventListener(
  "click",
  guarded(() => forkAndOpen())
);
onBranch((step) => guarded(() => forkAndOpen(step))());

const readArguments = (): Record<string, unknown> => {
  const args = toolForm?.read();
  if (!args) throw new Error("Pick a tool.");
  if (!args.ok) throw new Error(args.message);
  return args.value;
};

let calls = 0;

$("#step").addEventListener(
  "click",
  guarded(async () => {
    if (!session) return;
    const name = $<HTMLSelectElement>("#tool").value;
    const action = {
      tool_calls: [
        {
          id: `ui_${++calls}`,
          type: "function",
          function: { name, arguments: readArguments() }
        }
      ]
    };
    showObservations(await sessionApi(session, "POST", "/step", { action }));
    await refreshStatus();
  })
);

$("#call").addEventListener(
  "click",
  guarded(async () => {
    if (!session) return;
    const name = $<HTMLSelectElement>("#tool").value;
    showObservations(
      await sessionApi(session, "POST", `/tools/${encodeURIComponent(name)}`, {
        arguments: readArguments()
      })
    );
  })
);

$("#send-raw").addEventListener(
  "click",
  guarded(async () => {
    if (!session) return;
    let action: unknown;
    try {
      action = JSON.parse($<HTMLTextAreaElement>("#raw").value);
    } catch {
      throw new Error("The raw action is not valid JSON.");
    }
    showObservations(await sessionApi(session, "POST", "/step", { action }));
    await refreshStatus();
  })
);

$("#share").addEventListener(
  "click",
  guarded(async () => {
    if (session) await share(session);
  })
);
$("#share-copy").addEventListener("click", guarded(copyShared));

/** Opens the session a read-only link names, on load or when a link is pasted into this tab. */
const openLinked = guarded(async () => {
  const linked = linkedSession();
  if (linked && (linked.id !== session?.id || linked.token !== session.token))
    await open(linked, true);
});
window.addEventListener("hashchange", () => void openLinked());

$("#store").append(store.element);
$("#tree").append(tree.element);
$("#reward-plot").append(plot.element);

void guarded(async () => {
  environments = (
    await api<{ environments: EnvironmentInfo[] }>("GET", "/v1/environments")
  ).environments;
  renderEnvironments();
  // After the environments: the session's tools come from them.
  await openLinked();
})();
