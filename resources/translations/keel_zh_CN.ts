<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>QObject</name>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="289"/>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="295"/>
        <source>Exported %1 rows…</source>
        <translation>已导出 %1 行…</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="354"/>
        <source>the read replica: %1</source>
        <translation>只读副本：%1</translation>
    </message>
</context>
<context>
    <name>keel::ActionReviewPane</name>
    <message>
        <location filename="../../ui/ActionReviewPane.cpp" line="40"/>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <location filename="../../ui/ActionReviewPane.cpp" line="40"/>
        <source>Version it must still have</source>
        <translation>须仍为的版本</translation>
    </message>
    <message>
        <location filename="../../ui/ActionReviewPane.cpp" line="40"/>
        <source>Frozen targets</source>
        <translation>冻结的目标</translation>
    </message>
    <message>
        <location filename="../../ui/ActionReviewPane.cpp" line="41"/>
        <source>Account</source>
        <translation>科目</translation>
    </message>
    <message>
        <location filename="../../ui/ActionReviewPane.cpp" line="41"/>
        <source>Posting</source>
        <translation>分录</translation>
    </message>
    <message>
        <location filename="../../ui/ActionReviewPane.cpp" line="41"/>
        <source>Balance before</source>
        <translation>执行前余额</translation>
    </message>
    <message>
        <location filename="../../ui/ActionReviewPane.cpp" line="41"/>
        <source>Balance after</source>
        <translation>执行后余额</translation>
    </message>
    <message>
        <location filename="../../ui/ActionReviewPane.cpp" line="42"/>
        <source>Postings</source>
        <translation>分录</translation>
    </message>
    <message>
        <location filename="../../ui/ActionReviewPane.cpp" line="48"/>
        <source>What executing will do</source>
        <translation>执行将做什么</translation>
    </message>
    <message>
        <location filename="../../ui/ActionReviewPane.cpp" line="59"/>
        <source>Select a proposal to see what executing it will do.</source>
        <translation>选择一个提案，查看执行它将做什么。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/ActionReviewPane.cpp" line="67"/>
        <source>#%1 %2 will touch %n row(s), each only if still at the version below; content %3</source>
        <translation>
            <numerusform>#%1 %2 将作用于 %n 行，每行仅在仍为下列版本时生效；内容 %3</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>keel::AdjustmentDialog</name>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="38"/>
        <source>&amp;Continue to proposal…</source>
        <translation>继续提议(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="40"/>
        <source>Ledger adjustment for case %1</source>
        <translation>案件 %1 的账务调整</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="43"/>
        <source>keel takes %1 %2 out of suspense (the first line). Enter the postings that receive it, in %2: credits are negative. They must bring the sum to zero.</source>
        <translation>keel 将 %1 %2 转出差错户（第一行）。请以 %2 填写接收这笔资金的分录：贷方为负数。合计必须为零。</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="49"/>
        <source>Account</source>
        <translation>账户</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="49"/>
        <source>Amount (%1)</source>
        <translation>金额（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="50"/>
        <source>Postings</source>
        <translation>分录</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="63"/>
        <source>&amp;Add line</source>
        <translation>添加一行(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="68"/>
        <source>Sum</source>
        <translation>合计</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="69"/>
        <source>Suspense balance after</source>
        <translation>调整后差错户余额</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="119"/>
        <source>Account of line %1</source>
        <translation>第 %1 行账户</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="121"/>
        <source>Amount of line %1</source>
        <translation>第 %1 行金额</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="144"/>
        <source>line %1: choose an account</source>
        <translation>第 %1 行：请选择账户</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="149"/>
        <source>line %1 amount</source>
        <translation>第 %1 行金额</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="174"/>
        <source>Sum: %1 %2 — balanced</source>
        <translation>合计：%1 %2 — 已平衡</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="175"/>
        <source>Sum: %1 %2 — does not balance</source>
        <translation>合计：%1 %2 — 不平衡</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="171"/>
        <source>Each posting receives part of what the case holds: enter it as a negative amount.</source>
        <translation>每一笔分录都只接收本案件所持款项的一部分：请填写负数金额。</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="178"/>
        <source>Suspense %1 after: %2 (now %3)</source>
        <translation>调整后差错户 %1：%2（当前 %3）</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="200"/>
        <source>sum 0 %1 · suspense %1 after: %2</source>
        <translation>合计 0 %1 · 调整后差错户 %1：%2</translation>
    </message>
    <message>
        <location filename="../../ui/AdjustmentDialog.cpp" line="212"/>
        <source>Case %1 is resolved by these postings, which sum to zero.</source>
        <translation>案件 %1 将以这些合计为零的分录解决。</translation>
    </message>
</context>
<context>
    <name>keel::ApprovalsView</name>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="34"/>
        <source>The proposal had expired: nothing was done.</source>
        <translation>提案已过期：未执行任何操作。</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="36"/>
        <source>Queued: a keel worker carries it out within seconds; its outcome appears in the list.</source>
        <translation>已排队：keel worker 将在数秒内执行，结果会显示在列表中。</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="42"/>
        <source>Executed%1: %2 applied, %3 skipped.</source>
        <translation>已执行%1：%2 项生效，%3 项跳过。</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="43"/>
        <source> earlier</source>
        <translation>（之前）</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="47"/>
        <source>Skipped: %1</source>
        <translation>跳过：%1</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="61"/>
        <source>posting: %1  %2 (minor units)</source>
        <translation>分录：%1  %2（最小货币单位）</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="74"/>
        <source>&amp;Approve…</source>
        <translation>批准(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="75"/>
        <source>Re&amp;ject…</source>
        <translation>驳回(&amp;J)…</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="76"/>
        <source>E&amp;xecute</source>
        <translation>执行(&amp;X)</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="80"/>
        <source>Waiting for me</source>
        <translation>待我处理</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="81"/>
        <source>All proposals</source>
        <translation>全部提案</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="82"/>
        <source>Queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="83"/>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="84"/>
        <source>E&amp;xport CSV…</source>
        <translation>导出 CSV(&amp;X)…</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="95"/>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="95"/>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="95"/>
        <source>Targets</source>
        <translation>对象</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="95"/>
        <source>Rows</source>
        <translation>行数</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="96"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="96"/>
        <source>Proposed by</source>
        <translation>提议人</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="96"/>
        <source>Proposed</source>
        <translation>提议时间</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="97"/>
        <source>Expires</source>
        <translation>过期时间</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="97"/>
        <source>Decided by</source>
        <translation>审批人</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="97"/>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="98"/>
        <source>Proposals</source>
        <translation>提案</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="107"/>
        <source>Proposal details</source>
        <translation>提案详情</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="112"/>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="136"/>
        <source>Approving needs keel_approver.</source>
        <translation>批准需要 keel_approver 角色。</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="140"/>
        <source>Executing needs the proposer or keel_approver.</source>
        <translation>只有提议人或 keel_approver 可以执行。</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="227"/>
        <source>#%1 %2 on %3 row(s) · targets hash %4 · %5</source>
        <translation>#%1 %2，共 %3 行 · 对象哈希 %4 · %5</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="293"/>
        <location filename="../../ui/ApprovalsView.cpp" line="329"/>
        <source>Refused by the database: %1</source>
        <translation>数据库拒绝：%1</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="307"/>
        <source>Proposal #%1 approved.</source>
        <translation>提案 #%1 已批准。</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="314"/>
        <source>Proposal #%1 rejected.</source>
        <translation>提案 #%1 已驳回。</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="343"/>
        <source>Approve #%1</source>
        <translation>批准 #%1</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="344"/>
        <source>Approve %1 on %2 row(s) proposed by %3?
Reason given: %4

Comment (optional):</source>
        <translation>批准 %3 提议的 %1（共 %2 行）？
理由：%4

备注（可选）：</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="359"/>
        <source>Reject #%1</source>
        <translation>驳回 #%1</translation>
    </message>
    <message>
        <location filename="../../ui/ApprovalsView.cpp" line="360"/>
        <source>Why is it rejected? (at least 5 characters)</source>
        <translation>驳回原因？（至少 5 个字符）</translation>
    </message>
</context>
<context>
    <name>keel::AttentionBar</name>
    <message>
        <location filename="../../ui/AttentionBar.cpp" line="27"/>
        <source>Needs a person now:</source>
        <translation>需要人工处理：</translation>
    </message>
    <message>
        <location filename="../../ui/AttentionBar.cpp" line="50"/>
        <source>Needs a person now</source>
        <translation>需要人工处理</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/AttentionBar.cpp" line="84"/>
        <source>%n stuck saga(s)</source>
        <translation>
            <numerusform>%n 个卡住的 Saga</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/AttentionBar.cpp" line="86"/>
        <source>%n case(s) past deadline</source>
        <translation>
            <numerusform>%n 个逾期案件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/AttentionBar.cpp" line="88"/>
        <source>%n channel notice(s) for a person</source>
        <translation>
            <numerusform>%n 条待人工处理的渠道通知</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/AttentionBar.cpp" line="90"/>
        <source>%n parked message(s)</source>
        <translation>
            <numerusform>%n 条搁置消息</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/AttentionBar.cpp" line="92"/>
        <source>%n notification(s) that gave up</source>
        <translation>
            <numerusform>%n 条投递失败的通知</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/AttentionBar.cpp" line="94"/>
        <source>%n proposal(s) waiting</source>
        <translation>
            <numerusform>%n 个待审批提案</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n reconciliation break(s)</source>
        <translation>
            <numerusform>%n 个对账差错</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>keel::AuditModel</name>
    <message>
        <location filename="../../ui/AuditModel.cpp" line="88"/>
        <source>Seq</source>
        <translation>序号</translation>
    </message>
    <message>
        <location filename="../../ui/AuditModel.cpp" line="88"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../ui/AuditModel.cpp" line="88"/>
        <source>Who</source>
        <translation>操作人</translation>
    </message>
    <message>
        <location filename="../../ui/AuditModel.cpp" line="88"/>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <location filename="../../ui/AuditModel.cpp" line="89"/>
        <source>Object</source>
        <translation>对象</translation>
    </message>
    <message>
        <location filename="../../ui/AuditModel.cpp" line="89"/>
        <source>Detail</source>
        <translation>详情</translation>
    </message>
    <message>
        <location filename="../../ui/AuditModel.cpp" line="89"/>
        <source>Hash</source>
        <translation>哈希</translation>
    </message>
</context>
<context>
    <name>keel::AuditView</name>
    <message>
        <location filename="../../ui/AuditView.cpp" line="28"/>
        <source>seq %1 is missing: a link was deleted.</source>
        <translation>序号 %1 缺失：有一环被删除。</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="30"/>
        <source>seq %1 does not point at the hash of the link before it: links before it were replaced.</source>
        <translation>序号 %1 未指向前一环的哈希：之前的记录被替换。</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="34"/>
        <source>seq %1 does not match its hash: the row was edited.</source>
        <translation>序号 %1 与其哈希不符：该行被修改。</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="36"/>
        <source>seq %1 holds another hash than the checkpoint: the chain up to it was rewritten.</source>
        <translation>序号 %1 的哈希与检查点不同：到此为止的链被重写。</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="40"/>
        <source>the checkpoint&apos;s seq %1 is gone: the chain was cut back.</source>
        <translation>检查点的序号 %1 已不存在：链被截断。</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="51"/>
        <source>&amp;Verify chain</source>
        <translation>校验哈希链(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="57"/>
        <source>Audit trail</source>
        <translation>审计日志</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="75"/>
        <source>login</source>
        <translation>登录名</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="76"/>
        <source>Who</source>
        <translation>操作人</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="78"/>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="82"/>
        <source>type or type:id</source>
        <translation>类型 或 类型:编号</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="83"/>
        <source>Object</source>
        <translation>对象</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="84"/>
        <source>&amp;Find</source>
        <translation>查找(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="89"/>
        <source>E&amp;xport CSV…</source>
        <translation>导出 CSV(&amp;X)…</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="95"/>
        <source>W&amp;ho</source>
        <translation>操作人(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="97"/>
        <source>&amp;Action</source>
        <translation>操作(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="99"/>
        <source>O&amp;bject</source>
        <translation>对象(&amp;B)</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="117"/>
        <source>Verify against &amp;checkpoint…</source>
        <translation>对照检查点校验(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="118"/>
        <source>&amp;Save checkpoint…</source>
        <translation>保存检查点(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="119"/>
        <source>Writes the chain&apos;s head (seq and hash) to a file to keep outside the database; verifying against it later proves nothing up to it changed.</source>
        <translation>把链头（序号与哈希）写入文件并保存在数据库之外；日后对照校验可证明此前的记录未被改动。</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="121"/>
        <source>Verification result</source>
        <translation>校验结果</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="165"/>
        <source>Verifying…</source>
        <translation>正在校验…</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="171"/>
        <source>Could not verify: %1</source>
        <translation>无法校验：%1</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="185"/>
        <source>Chain intact and holds the checkpoint: %1 links, head seq %2.</source>
        <translation>哈希链完整且与检查点一致：共 %1 环，链头序号 %2。</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="187"/>
        <source>Chain intact: %1 links, head seq %2.</source>
        <translation>哈希链完整：共 %1 环，链头序号 %2。</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="196"/>
        <source>Chain broken: %1</source>
        <translation>哈希链断裂：%1</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="206"/>
        <source>Checkpoint to verify against</source>
        <translation>选择用于校验的检查点</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="211"/>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="216"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="225"/>
        <source>Save checkpoint</source>
        <translation>保存检查点</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="245"/>
        <source>Checkpoint saved: seq %1.</source>
        <translation>检查点已保存：序号 %1。</translation>
    </message>
    <message>
        <location filename="../../ui/AuditView.cpp" line="248"/>
        <source>Could not save the checkpoint: %1</source>
        <translation>无法保存检查点：%1</translation>
    </message>
</context>
<context>
    <name>keel::CaseSearchBar</name>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="23"/>
        <source>ch_…, saga_… or order no.</source>
        <translation>ch_…、saga_… 或订单号</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="23"/>
        <source>Charge, saga or order number</source>
        <translation>支付、Saga 或订单号</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="24"/>
        <location filename="../../ui/CaseSearchBar.cpp" line="49"/>
        <source>merchant id</source>
        <translation>商户编号</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="24"/>
        <source>Merchant</source>
        <translation>商户</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="27"/>
        <source>Opened from</source>
        <translation>开立起始日</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="28"/>
        <source>Opened before</source>
        <translation>开立截止日前</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="25"/>
        <location filename="../../ui/CaseSearchBar.cpp" line="54"/>
        <source>min amount</source>
        <translation>最小金额</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="25"/>
        <source>Minimum amount, in minor units</source>
        <translation>最小金额（最小货币单位）</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="26"/>
        <location filename="../../ui/CaseSearchBar.cpp" line="54"/>
        <source>max amount</source>
        <translation>最大金额</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="26"/>
        <source>Maximum amount, in minor units</source>
        <translation>最大金额（最小货币单位）</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="27"/>
        <source>from YYYY-MM-DD</source>
        <translation>起始 YYYY-MM-DD</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="28"/>
        <source>before YYYY-MM-DD</source>
        <translation>截止前 YYYY-MM-DD</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="59"/>
        <location filename="../../ui/CaseSearchBar.cpp" line="66"/>
        <source>opened from</source>
        <translation>开立起始日</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="62"/>
        <source>opened before</source>
        <translation>开立截止日前</translation>
    </message>
    <message>
        <location filename="../../ui/CaseSearchBar.cpp" line="67"/>
        <source>the first day must be before the last</source>
        <translation>起始日必须早于截止日</translation>
    </message>
</context>
<context>
    <name>keel::ChartPanel</name>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="25"/>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="26"/>
        <source>Export the chart &quot;%1&quot; to PNG or PDF</source>
        <translation>将图表“%1”导出为 PNG 或 PDF</translation>
    </message>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="156"/>
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="157"/>
        <source>PNG image (*.png);;PDF document (*.pdf)</source>
        <translation>PNG 图片 (*.png);;PDF 文档 (*.pdf)</translation>
    </message>
</context>
<context>
    <name>keel::ConnectDialog</name>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="34"/>
        <source>Connect to keel</source>
        <translation>连接到 keel</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="75"/>
        <source>Saved connections</source>
        <translation>已保存的连接</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="77"/>
        <source>&amp;New</source>
        <translation>新建(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="78"/>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="90"/>
        <source>Host and port</source>
        <translation>主机和端口</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="91"/>
        <source>Service name (pg_service.conf)</source>
        <translation>服务名（pg_service.conf）</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="92"/>
        <source>Connection URI</source>
        <translation>连接 URI</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="93"/>
        <source>the local socket</source>
        <translation>本地套接字</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="95"/>
        <source>default (5432)</source>
        <translation>默认 (5432)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="96"/>
        <source>same as the user name</source>
        <translation>与用户名相同</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="97"/>
        <source>your login name</source>
        <translation>你的登录名</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="99"/>
        <source>libpq&apos;s default (prefer)</source>
        <translation>libpq 默认 (prefer)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="102"/>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="103"/>
        <source>Choose the root certificate</source>
        <translation>选择根证书</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="108"/>
        <source>~/.postgresql/root.crt</source>
        <translation>~/.postgresql/root.crt</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="109"/>
        <source>optional, e.g. host=replica.example</source>
        <translation>可选，例如 host=replica.example</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="111"/>
        <source>from the keychain, .pgpass or PGPASSWORD if empty</source>
        <translation>留空则使用钥匙串、.pgpass 或 PGPASSWORD</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="112"/>
        <source>Remember in the system &amp;keychain</source>
        <translation>保存在系统钥匙串中(&amp;K)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="116"/>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="117"/>
        <source>Connect &amp;with:</source>
        <translation>连接方式(&amp;W)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="118"/>
        <source>&amp;Host:</source>
        <translation>主机(&amp;H)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="119"/>
        <source>&amp;Port:</source>
        <translation>端口(&amp;P)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="120"/>
        <source>&amp;Database:</source>
        <translation>数据库(&amp;D)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="121"/>
        <source>&amp;User:</source>
        <translation>用户(&amp;U)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="122"/>
        <source>&amp;Service:</source>
        <translation>服务(&amp;S)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="123"/>
        <source>U&amp;RI:</source>
        <translation>URI(&amp;R)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="124"/>
        <source>&amp;TLS:</source>
        <translation>TLS(&amp;T)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="125"/>
        <source>Root &amp;certificate:</source>
        <translation>根证书(&amp;C)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="128"/>
        <source>Read &amp;replica:</source>
        <translation>只读副本(&amp;R)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="129"/>
        <source>Pass&amp;word:</source>
        <translation>密码(&amp;W)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="40"/>
        <source>&amp;Connect</source>
        <translation>连接(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="148"/>
        <source>Root certificate</source>
        <translation>根证书</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="148"/>
        <source>Certificates (*.crt *.pem);;All files (*)</source>
        <translation>证书 (*.crt *.pem);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="159"/>
        <source>No keychain is available, so the password is asked for each time and never stored.</source>
        <translation>没有可用的钥匙串，因此每次都会询问密码，且从不保存。</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="239"/>
        <source>New connection</source>
        <translation>新连接</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="241"/>
        <source>New connection %1</source>
        <translation>新连接 %1</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="344"/>
        <source>Connecting to %1…</source>
        <translation>正在连接 %1…</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="398"/>
        <source>The server refused the password kept in the keychain; enter it again.</source>
        <translation>服务器拒绝了钥匙串中保存的密码，请重新输入。</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="389"/>
        <source>The server asks for a password, and none was found in the keychain, .pgpass or PGPASSWORD. Enter it below.</source>
        <translation>服务器要求密码，但在钥匙串、.pgpass 或 PGPASSWORD 中都没有找到。请在下方输入。</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="399"/>
        <source>The server refused the password: %1</source>
        <translation>服务器拒绝了该密码：%1</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="403"/>
        <source>Could not connect: %1</source>
        <translation>无法连接：%1</translation>
    </message>
</context>
<context>
    <name>keel::FilterFields</name>
    <message>
        <source>merchant id</source>
        <translation>商户编号</translation>
    </message>
    <message>
        <source>min amount</source>
        <translation>最小金额</translation>
    </message>
    <message>
        <source>max amount</source>
        <translation>最大金额</translation>
    </message>
    <message>
        <location filename="../../ui/FilterFields.cpp" line="17"/>
        <source>%1 must be a whole number ≥ 0; got &quot;%2&quot;</source>
        <translation>%1 必须是 ≥ 0 的整数；收到的是“%2”</translation>
    </message>
    <message>
        <location filename="../../ui/FilterFields.cpp" line="34"/>
        <source>%1 is above %2</source>
        <translation>%1 大于 %2</translation>
    </message>
    <message>
        <location filename="../../ui/FilterFields.cpp" line="47"/>
        <source>%1 must be a day like 2026-11-30; got &quot;%2&quot;</source>
        <translation>%1 必须是形如 2026-11-30 的日期；收到的是“%2”</translation>
    </message>
</context>
<context>
    <name>keel::HistoryModel</name>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="69"/>
        <source>Charge</source>
        <translation>支付单</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="69"/>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="70"/>
        <source>Merchant</source>
        <translation>商户</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="70"/>
        <source>Order no.</source>
        <translation>商户订单号</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="71"/>
        <source>Amount</source>
        <translation>金额</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="71"/>
        <source>Captured</source>
        <translation>已请款</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="72"/>
        <source>Refunded</source>
        <translation>已退款</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="72"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
</context>
<context>
    <name>keel::HistoryView</name>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="38"/>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="65"/>
        <source>charge id (ch_…) or order number</source>
        <translation>支付单号 (ch_…) 或商户订单号</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="66"/>
        <source>Charge id or order number</source>
        <translation>支付单号或商户订单号</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="67"/>
        <location filename="../../ui/HistoryView.cpp" line="166"/>
        <source>merchant id</source>
        <translation>商户 ID</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="68"/>
        <source>min, minor units</source>
        <translation>最小值（最小货币单位）</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="69"/>
        <source>max, minor units</source>
        <translation>最大值（最小货币单位）</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="70"/>
        <source>any state</source>
        <translation>任意状态</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="74"/>
        <source>Payment state</source>
        <translation>支付状态</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="75"/>
        <source>any time</source>
        <translation>任意时间</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="76"/>
        <source>last hour</source>
        <translation>最近 1 小时</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="77"/>
        <source>last 24 hours</source>
        <translation>最近 24 小时</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="78"/>
        <source>last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="79"/>
        <source>last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="80"/>
        <source>between…</source>
        <translation>指定区间…</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="81"/>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="90"/>
        <source>Created from</source>
        <translation>创建时间起</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="91"/>
        <source>Created before</source>
        <translation>创建时间止</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="43"/>
        <source>&amp;Search</source>
        <translation>搜索(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="126"/>
        <source>Payments</source>
        <translation>支付记录</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="127"/>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="127"/>
        <source>Where</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="127"/>
        <source>What</source>
        <translation>内容</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="129"/>
        <source>Timeline of the selected payment</source>
        <translation>所选支付的时间线</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/HistoryView.cpp" line="154"/>
        <source>%n payment(s) loaded</source>
        <translation>
            <numerusform>已加载 %n 笔支付</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="155"/>
        <source>; scroll for more</source>
        <translation>；向下滚动加载更多</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="171"/>
        <source>min amount</source>
        <translation>最小金额</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="171"/>
        <source>max amount</source>
        <translation>最大金额</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="195"/>
        <source>created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="196"/>
        <source>the start of the time range must be before its end</source>
        <translation>时间范围的开始必须早于结束</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="226"/>
        <source>Not shown, because this connection may not read them: %1.</source>
        <translation>未显示（当前连接无权读取）：%1。</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="245"/>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/HistoryView.cpp" line="304"/>
        <source>Exported %n payment(s).</source>
        <translation>
            <numerusform>已导出 %n 笔支付。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="315"/>
        <source>Export payments</source>
        <translation>导出支付记录</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="315"/>
        <source>CSV (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="318"/>
        <source>Exporting payments…</source>
        <translation>正在导出支付记录…</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="318"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>keel::MainWindow</name>
    <message>
        <source>Reconciliation</source>
        <translation>对账</translation>
    </message>
    <message>
        <source>&amp;Reconciliation</source>
        <translation>对账(&amp;R)</translation>
    </message>
    <message>
        <source>Reconciliation: %1</source>
        <translation>对账：%1</translation>
    </message>
    <message>
        <source>Needs read access to keel.recon_breaks: keel_operator, keel_approver or keel_auditor.</source>
        <translation>需要 keel.recon_breaks 的读权限：keel_operator、keel_approver 或 keel_auditor。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="57"/>
        <source>keel console</source>
        <translation>keel 运维控制台</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="85"/>
        <source>Views</source>
        <translation>视图</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="88"/>
        <source>Overview</source>
        <translation>总览</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="88"/>
        <source>Payment history</source>
        <translation>支付历史</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="89"/>
        <source>Sagas</source>
        <translation>Saga 事务</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="89"/>
        <source>Suspense cases</source>
        <translation>差错案件</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="90"/>
        <source>Outbox</source>
        <translation>发件箱</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="90"/>
        <source>Approvals</source>
        <translation>审批</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="91"/>
        <source>Audit trail</source>
        <translation>审计日志</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="60"/>
        <source>Payment history: %1</source>
        <translation>支付历史：%1</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="110"/>
        <source>The dashboard could not be refreshed: %1</source>
        <translation>仪表盘刷新失败：%1</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="136"/>
        <source>The read replica is unreachable: %1. keel keeps retrying.</source>
        <translation>只读副本不可达：%1。keel 会自动重试。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="148"/>
        <source>Connection lost: %1. keel keeps retrying.</source>
        <translation>连接中断：%1。keel 会自动重试。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="150"/>
        <source>not connected</source>
        <translation>未连接</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="157"/>
        <source>&amp;Connection</source>
        <translation>连接(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="159"/>
        <source>&amp;Connect to…</source>
        <translation>连接到(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="162"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="164"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="167"/>
        <source>&amp;Overview</source>
        <translation>总览(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="169"/>
        <source>Payment &amp;history</source>
        <translation>支付历史(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="173"/>
        <source>&amp;Sagas</source>
        <translation>Saga 事务(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="174"/>
        <source>Suspense &amp;cases</source>
        <translation>差错案件(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="175"/>
        <source>O&amp;utbox</source>
        <translation>发件箱(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="176"/>
        <source>A&amp;pprovals</source>
        <translation>审批(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="177"/>
        <source>&amp;Audit trail</source>
        <translation>审计日志(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="183"/>
        <source>&amp;Find a payment</source>
        <translation>查找支付(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="188"/>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="193"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="196"/>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="208"/>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="210"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="211"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="248"/>
        <source>Needs read access to keel.metrics_minute (any keel role but the gateway&apos;s).</source>
        <translation>需要 keel.metrics_minute 的读权限（除网关外的任一 keel 角色）。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="250"/>
        <source>Needs read access to keel.charges: keel_auditor, keel_operator or keel_approver.</source>
        <translation>需要 keel.charges 的读权限：keel_auditor、keel_operator 或 keel_approver。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="255"/>
        <source>Needs read access to keel.sagas, saga_steps and saga_events (any keel role but the gateway&apos;s).</source>
        <translation>需要 keel.sagas、saga_steps 和 saga_events 的读取权限（除网关外的任一 keel 角色）。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="258"/>
        <source>Needs read access to keel.suspense_cases (any keel role but the gateway&apos;s).</source>
        <translation>需要 keel.suspense_cases 的读取权限（除网关外的任一 keel 角色）。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="260"/>
        <source>Needs read access to keel.outbox: keel_sre, keel_operator, keel_approver or keel_auditor.</source>
        <translation>需要 keel.outbox 的读取权限：keel_sre、keel_operator、keel_approver 或 keel_auditor。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="263"/>
        <source>Needs read access to keel.operator_actions (any keel role but the gateway&apos;s).</source>
        <translation>需要 keel.operator_actions 的读取权限（除网关外的任一 keel 角色）。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="265"/>
        <source>Needs read access to keel.audit_log (any keel role but the gateway&apos;s).</source>
        <translation>需要 keel.audit_log 的读取权限（除网关外的任一 keel 角色）。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="337"/>
        <source>Outbox: %1</source>
        <translation>发件箱：%1</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="340"/>
        <source>Audit trail: %1</source>
        <translation>审计日志：%1</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="343"/>
        <source>Sagas: %1</source>
        <translation>Saga 事务：%1</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="346"/>
        <source>Proposal #%1 (%2) waits for a second person to approve it.</source>
        <translation>提案 #%1（%2）等待另一人批准。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="358"/>
        <source>Suspense cases: %1</source>
        <translation>差错案件：%1</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="392"/>
        <source>superuser</source>
        <translation>超级用户</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="394"/>
        <source>no keel role</source>
        <translation>无 keel 角色</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="396"/>
        <source>%1 on %2 · %3 · schema v%4</source>
        <translation>%1 @ %2 · %3 · 架构 v%4</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="400"/>
        <source>%1 holds no keel role, so most of keel is hidden from it; ask an administrator to grant keel_auditor, keel_operator or keel_sre.</source>
        <translation>%1 没有任何 keel 角色，因此大部分内容不可见；请联系管理员授予 keel_auditor、keel_operator 或 keel_sre。</translation>
    </message>
</context>
<context>
    <name>keel::MessageBanner</name>
    <message>
        <location filename="../../ui/MessageBanner.cpp" line="19"/>
        <source>Dismiss message</source>
        <translation>关闭消息</translation>
    </message>
</context>
<context>
    <name>keel::OperationsPanel</name>
    <message>
        <location filename="../../ui/OperationsPanel.cpp" line="29"/>
        <source>Outbox now</source>
        <translation>发件箱现状</translation>
    </message>
    <message>
        <location filename="../../ui/OperationsPanel.cpp" line="30"/>
        <source>Sagas now</source>
        <translation>Saga 现状</translation>
    </message>
    <message>
        <location filename="../../ui/OperationsPanel.cpp" line="31"/>
        <source>Open cases by age</source>
        <translation>未结案件按时长</translation>
    </message>
    <message>
        <location filename="../../ui/OperationsPanel.cpp" line="64"/>
        <source>&lt;b&gt;Outbox&lt;/b&gt;&lt;br&gt;%1 waiting · oldest %2 s&lt;br&gt;%3 parked</source>
        <translation>&lt;b&gt;发件箱&lt;/b&gt;&lt;br&gt;%1 条待发布 · 最早 %2 秒&lt;br&gt;%3 条搁置</translation>
    </message>
    <message>
        <location filename="../../ui/OperationsPanel.cpp" line="69"/>
        <source>&lt;b&gt;Sagas&lt;/b&gt;&lt;br&gt;%1 running · %2 compensating&lt;br&gt;%3 stuck · %4 parked</source>
        <translation>&lt;b&gt;Saga&lt;/b&gt;&lt;br&gt;%1 运行中 · %2 补偿中&lt;br&gt;%3 卡住 · %4 已搁置</translation>
    </message>
    <message>
        <location filename="../../ui/OperationsPanel.cpp" line="75"/>
        <source>&lt;b&gt;Open suspense cases by age&lt;/b&gt;&lt;br&gt;0–1 d: %1 · 1–3 d: %2&lt;br&gt;3–7 d: %3 · over 7 d: %4</source>
        <translation>&lt;b&gt;未结差错案件按时长&lt;/b&gt;&lt;br&gt;0–1 天：%1 · 1–3 天：%2&lt;br&gt;3–7 天：%3 · 超过 7 天：%4</translation>
    </message>
</context>
<context>
    <name>keel::ReconView</name>
    <message>
        <source>Load &amp;more</source>
        <translation>加载更多(&amp;M)</translation>
    </message>
    <message>
        <source>Channel</source>
        <translation>渠道</translation>
    </message>
    <message>
        <source>Day</source>
        <translation>账期</translation>
    </message>
    <message>
        <source>Lines</source>
        <translation>明细行</translation>
    </message>
    <message>
        <source>Matched</source>
        <translation>已匹配</translation>
    </message>
    <message>
        <source>Breaks</source>
        <translation>差错</translation>
    </message>
    <message>
        <source>Unexplained</source>
        <translation>未解释差额</translation>
    </message>
    <message>
        <source>Run at</source>
        <translation>运行时间</translation>
    </message>
    <message>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>0–1 d</source>
        <translation>0–1 天</translation>
    </message>
    <message>
        <source>2–7 d</source>
        <translation>2–7 天</translation>
    </message>
    <message>
        <source>8–30 d</source>
        <translation>8–30 天</translation>
    </message>
    <message>
        <source>&gt; 30 d</source>
        <translation>超过 30 天</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>单号</translation>
    </message>
    <message>
        <source>Channel says</source>
        <translation>渠道记录</translation>
    </message>
    <message>
        <source>keel has</source>
        <translation>keel 记录</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Age</source>
        <translation>账龄</translation>
    </message>
    <message>
        <source>Case</source>
        <translation>差错案件</translation>
    </message>
    <message>
        <source>Reconciliation runs</source>
        <translation>对账批次</translation>
    </message>
    <message>
        <source>Open breaks by age</source>
        <translation>按账龄的未结差错</translation>
    </message>
    <message>
        <source>Open breaks</source>
        <translation>未结差错</translation>
    </message>
    <message>
        <source>Reconciliation summary</source>
        <translation>对账概要</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>&lt;b&gt;Open breaks&lt;/b&gt;, oldest day first</source>
        <translation>&lt;b&gt;未结差错&lt;/b&gt;，最早的账期在前</translation>
    </message>
    <message>
        <source>The channel's lines</source>
        <translation>渠道明细</translation>
    </message>
    <message>
        <source>keel's record</source>
        <translation>keel 记录</translation>
    </message>
    <message>
        <source>Select a break to see the channel's lines beside keel's record.</source>
        <translation>选择一条差错，对照查看渠道明细与 keel 记录。</translation>
    </message>
    <message>
        <source>No reconciliation has run yet: `keel recon import` a channel's statement, then `keel recon run` its day.</source>
        <translation>尚未对账：先用 `keel recon import` 导入渠道对账单，再用 `keel recon run` 对该账期对账。</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>无</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message>
        <source>%1 · %2 · fee %3 · %4 · statement %5</source>
        <translation>%1 · %2 · 手续费 %3 · %4 · 对账单 %5</translation>
    </message>
    <message>
        <source>&lt;b&gt;The channel (%1)&lt;/b&gt; reports %2 %3:&lt;br&gt;%4</source>
        <translation>&lt;b&gt;渠道（%1）&lt;/b&gt;记录 %2 %3：&lt;br&gt;%4</translation>
    </message>
    <message>
        <source>no line</source>
        <translation>无明细</translation>
    </message>
    <message>
        <source>keel has no %1 %2; the channel&apos;s line names charge %3 as the payment it gave money back from.</source>
        <translation>keel 没有 %1 %2；渠道的明细注明它退的是支付 %3。</translation>
    </message>
    <message>
        <source>keel has no %1 %2.</source>
        <translation>keel 没有 %1 %2。</translation>
    </message>
    <message>
        <source>%1 %2 is %3, for %4; captured %5, refunded %6; created %7.</source>
        <translation>%1 %2 状态为 %3，金额 %4；已请款 %5，已退款 %6；创建于 %7。</translation>
    </message>
    <message>
        <source>&lt;b&gt;keel&lt;/b&gt; books %1 for it (%2, %3).&lt;br&gt;%4&lt;br&gt;%5</source>
        <translation>&lt;b&gt;keel&lt;/b&gt; 为其记账 %1（%2，%3）。&lt;br&gt;%4&lt;br&gt;%5</translation>
    </message>
    <message>
        <source>No case yet: one opens once the settlement lag has passed.</source>
        <translation>尚无差错案件：结算滞后期过后自动立案。</translation>
    </message>
    <message>
        <source>Suspense case #%1 (%2).</source>
        <translation>差错案件 #%1（%2）。</translation>
    </message>
    <message numerus="yes">
        <source>%n day(s) reconciled · unexplained %1</source>
        <translation>
            <numerusform>已对账 %n 个账期 · 未解释差额 %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n day(s)</source>
        <translation>
            <numerusform>%n 天</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Match by hand…</source>
        <translation>手工匹配(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Accept until…</source>
        <translation>接受至(&amp;A)…</translation>
    </message>
    <message>
        <source>Book &amp;fee adjustment…</source>
        <translation>记手续费调整(&amp;F)…</translation>
    </message>
    <message>
        <source>Select a missing_at_keel and a missing_at_channel break of the same amount: the channel reported keel's movement under its own reference. Both resolve, and money parked for them returns.</source>
        <translation>选中金额相同的一条 missing_at_keel 和一条 missing_at_channel 差错：渠道用自己的单号报了 keel 的这笔款。两条都了结，为它们挂账的资金退回。</translation>
    </message>
    <message>
        <source>Accept the selected break with a note until the date: it leaves the difference and opens no case until then.</source>
        <translation>附说明接受选中的差错至该日：在此之前它不计入差额，也不立案。</translation>
    </message>
    <message>
        <source>Book what the channel took beyond the contracted fee as a claim on the channel, and resolve the fee_variance.</source>
        <translation>把渠道多收的手续费记为对渠道的应收，并了结这条 fee_variance。</translation>
    </message>
    <message>
        <source>Accept until</source>
        <translation>接受至</translation>
    </message>
    <message>
        <source>Resolve, with a second person's approval:</source>
        <translation>处理（需第二人审批）：</translation>
    </message>
    <message>
        <source>accepted until %1</source>
        <translation>已接受至 %1</translation>
    </message>
    <message>
        <source>The channel's %1 %2 is keel's %3: both breaks resolve, and money a case of either parked in suspense returns to the clearing account.</source>
        <translation>渠道的 %1 %2 就是 keel 的 %3：两条差错都了结，任一案件挂在差错户的资金退回渠道清算户。</translation>
    </message>
    <message>
        <source>Break %1 is accepted until the end of %2 (%3's day): it leaves the unexplained difference and opens no case until then. Nothing is posted.</source>
        <translation>差错 %1 接受至 %2 日终（按 %3 的账期）：在此之前不计入未解释差额，也不立案。不记任何分录。</translation>
    </message>
    <message>
        <source>%1 moves from the channel's fee expense to channel_fee_claims:%2:%3 (a negative amount is owed to the channel), and break %4 resolves.</source>
        <translation>%1 从渠道手续费支出转入 channel_fee_claims:%2:%3（为负时是欠渠道的），差错 %4 了结。</translation>
    </message>
    <message>
        <source>Statement</source>
        <translation>对账单</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Imported</source>
        <translation>导入时间</translation>
    </message>
    <message>
        <source>By</source>
        <translation>导入人</translation>
    </message>
    <message>
        <source>SHA-256</source>
        <translation>SHA-256</translation>
    </message>
    <message>
        <source>Withdrawn</source>
        <translation>已撤回</translation>
    </message>
    <message>
        <source>Statements</source>
        <translation>对账单</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>对账运行</translation>
    </message>
    <message>
        <source>&amp;Withdraw…</source>
        <translation>撤回(&amp;W)…</translation>
    </message>
    <message>
        <source>Withdraw the selected statement, imported wrong: its lines stop counting, the fees it booked come back, and the corrected file can be imported. A second person approves it.</source>
        <translation>撤回选中的误导入对账单：其明细不再计入，已记的手续费冲回，更正后的文件可以导入。需第二人审批。</translation>
    </message>
    <message>
        <source>Statement %1 is withdrawn: its %2 lines stop counting, the fees its import booked come back from the channel's fee account, and its days are to be reconciled again. The file stays on the record.</source>
        <translation>撤回对账单 %1：其 %2 条明细不再计入，导入时记入渠道手续费账户的费用冲回，涉及的账期需重新对账。文件本身仍留存备查。</translation>
    </message>
</context>
<context>
    <name>keel::OutboxView</name>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="50"/>
        <source>resend %1 of #%2</source>
        <translation>#%2 的第 %1 次重发</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="58"/>
        <location filename="../../ui/OutboxView.cpp" line="62"/>
        <source>Id</source>
        <translation>编号</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="58"/>
        <source>Aggregate</source>
        <translation>聚合</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="58"/>
        <location filename="../../ui/OutboxView.cpp" line="62"/>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="58"/>
        <location filename="../../ui/OutboxView.cpp" line="63"/>
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="58"/>
        <location filename="../../ui/OutboxView.cpp" line="63"/>
        <source>Parked at</source>
        <translation>搁置时间</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="59"/>
        <source>Lineage</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="59"/>
        <location filename="../../ui/OutboxView.cpp" line="63"/>
        <source>Last error</source>
        <translation>最近错误</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="60"/>
        <source>Parked messages</source>
        <translation>已搁置的消息</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="61"/>
        <source>&amp;Load more</source>
        <translation>加载更多(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="62"/>
        <source>Merchant</source>
        <translation>商户</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="62"/>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="62"/>
        <source>Charge</source>
        <translation>支付</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="64"/>
        <source>Notifications that gave up</source>
        <translation>投递失败的通知</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="65"/>
        <source>Resend &amp;selected…</source>
        <translation>重发所选(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="66"/>
        <source>Resend the whole &amp;group…</source>
        <translation>重发整组(&amp;G)…</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="67"/>
        <source>Resend selected &amp;notifications…</source>
        <translation>重发所选通知(&amp;N)…</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="71"/>
        <source>Outbox summary</source>
        <translation>发件箱概况</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="73"/>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="107"/>
        <source>&lt;b&gt;Parked messages&lt;/b&gt;, grouped by error</source>
        <translation>&lt;b&gt;已搁置的消息&lt;/b&gt;，按错误分组</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="109"/>
        <source>Parked by error</source>
        <translation>按错误分组</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="128"/>
        <source>&lt;b&gt;Merchant notifications that gave up&lt;/b&gt;</source>
        <translation>&lt;b&gt;投递失败的商户通知&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="141"/>
        <source>Proposing needs keel_operator or keel_sre; this login only reads.</source>
        <translation>提议需要 keel_operator 或 keel_sre 角色；当前登录只能读取。</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="187"/>
        <source>Backlog %1%2 · oldest unpublished %3 s · parked %4 message(s), %5 notification(s)</source>
        <translation>积压 %1%2 · 最早未发布 %3 秒 · 搁置消息 %4 条，通知 %5 条</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="199"/>
        <source>All parked (%1)</source>
        <translation>全部搁置（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="205"/>
        <source>no error recorded</source>
        <translation>无错误记录</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="300"/>
        <source>%1 parked messages</source>
        <translation>%1 条搁置消息</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="301"/>
        <source>Each message is published again as a new outbox row that names the original (lineage); the original stays parked and is marked resent.</source>
        <translation>每条消息作为新的发件箱记录重新发布，并注明原消息（来源）；原消息保持搁置并标记为已重发。</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="318"/>
        <source>%1 notifications</source>
        <translation>%1 条通知</translation>
    </message>
    <message>
        <location filename="../../ui/OutboxView.cpp" line="319"/>
        <source>Each notification is delivered again with the same event id, as a new delivery that names the one it repeats.</source>
        <translation>每条通知以相同的事件编号重新投递，作为新的投递并注明所重复的那一次。</translation>
    </message>
</context>
<context>
    <name>keel::OverviewView</name>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="64"/>
        <source>&amp;Range:</source>
        <translation>时间范围(&amp;R)：</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="66"/>
        <source>15 minutes</source>
        <translation>15 分钟</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="67"/>
        <source>1 hour</source>
        <translation>1 小时</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="68"/>
        <source>6 hours</source>
        <translation>6 小时</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="69"/>
        <source>24 hours</source>
        <translation>24 小时</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="70"/>
        <source>7 days</source>
        <translation>7 天</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="73"/>
        <source>Time range</source>
        <translation>时间范围</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="86"/>
        <source>Idempotency hit and conflict rate</source>
        <translation>幂等命中率与冲突率</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="86"/>
        <source>% of keyed requests</source>
        <translation>占带幂等键请求的百分比</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="87"/>
        <source>Charge requests by outcome</source>
        <translation>下单请求（按结果）</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="87"/>
        <source>requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="88"/>
        <source>Charge latency</source>
        <translation>下单延迟</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="88"/>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="89"/>
        <source>Money captured and refunded</source>
        <translation>请款与退款金额</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="89"/>
        <location filename="../../ui/OverviewView.cpp" line="92"/>
        <source>major units</source>
        <translation>主币单位</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="90"/>
        <source>Payment state transitions</source>
        <translation>支付状态流转</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="90"/>
        <source>payments</source>
        <translation>笔数</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="91"/>
        <source>Payments by state</source>
        <translation>各状态支付笔数</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="91"/>
        <source>payments (log scale)</source>
        <translation>笔数（对数刻度）</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="92"/>
        <source>Suspense account balance</source>
        <translation>差错户余额</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="93"/>
        <source>Outbox lag</source>
        <translation>发件箱延迟</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="93"/>
        <source>seconds, oldest unpublished</source>
        <translation>秒，最早未发布</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="94"/>
        <source>Outbox messages</source>
        <translation>发件箱消息</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="94"/>
        <source>messages</source>
        <translation>条消息</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="95"/>
        <source>Sagas</source>
        <translation>Saga</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="95"/>
        <source>sagas</source>
        <translation>个 Saga</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="96"/>
        <source>Saga compensation rate</source>
        <translation>Saga 补偿率</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="96"/>
        <source>% of sagas started</source>
        <translation>占已启动 Saga 的 %</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="97"/>
        <source>Saga step latency by definition</source>
        <translation>各定义的 Saga 步骤延迟</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="97"/>
        <source>ms, p95</source>
        <translation>毫秒，p95</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="99"/>
        <source>Nothing parked in a suspense account in this range</source>
        <translation>此时间范围内没有资金进入差错户</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="100"/>
        <source>No relay reported in this range</source>
        <translation>此时间范围内没有中继上报</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="101"/>
        <source>No saga step ran in this range</source>
        <translation>此时间范围内没有执行 Saga 步骤</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="258"/>
        <source>average lag</source>
        <translation>平均延迟</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="267"/>
        <source>published</source>
        <translation>已发布</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="269"/>
        <source>refused</source>
        <translation>被拒</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="271"/>
        <location filename="../../ui/OverviewView.cpp" line="284"/>
        <source>parked</source>
        <translation>已搁置</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="273"/>
        <source>backlog</source>
        <translation>积压</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="278"/>
        <source>started</source>
        <translation>已启动</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="280"/>
        <source>succeeded</source>
        <translation>已成功</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="282"/>
        <source>compensated</source>
        <translation>已补偿</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="300"/>
        <source>%1 (p50 %2 · p95 %3 · p99 %4 ms)</source>
        <translation>%1（p50 %2 · p95 %3 · p99 %4 毫秒）</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="330"/>
        <source>hit rate (replays)</source>
        <translation>命中率（重放）</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="331"/>
        <source>conflicts (409 + 422)</source>
        <translation>冲突 (409 + 422)</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="335"/>
        <source>new</source>
        <translation>新请求</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="336"/>
        <source>replayed</source>
        <translation>重放</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="338"/>
        <source>in flight 409</source>
        <translation>处理中 409</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="340"/>
        <source>mismatch 422</source>
        <translation>参数不一致 422</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="342"/>
        <source>other 4xx</source>
        <translation>其他 4xx</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="376"/>
        <source>turned to compensation</source>
        <translation>转入补偿</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="208"/>
        <source>%1 captured</source>
        <translation>%1 已请款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="211"/>
        <source>%1 refunded</source>
        <translation>%1 已退款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="359"/>
        <source>authorized</source>
        <translation>已授权</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="361"/>
        <source>declined or failed</source>
        <translation>拒绝或失败</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="363"/>
        <source>captured</source>
        <translation>已请款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="365"/>
        <source>refunded</source>
        <translation>已退款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="312"/>
        <source>%1 in %2</source>
        <translation>%1 笔处于 %2</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="314"/>
        <source>suspense %1</source>
        <translation>差错户 %1</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="317"/>
        <source>suspense balances need ledger access</source>
        <translation>差错户余额需要账本读权限</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="319"/>
        <source>No payments in flight; suspense accounts are empty.</source>
        <translation>没有处理中的支付；差错户余额为零。</translation>
    </message>
    <message>
        <source>Unreconciled difference</source>
        <translation>未对平差额</translation>
    </message>
    <message>
        <source>major units, the channel less keel</source>
        <translation>主币单位，渠道减 keel</translation>
    </message>
    <message>
        <source>Nothing unreconciled in this range</source>
        <translation>此时间范围内没有未对平差额</translation>
    </message>
</context>
<context>
    <name>keel::PasswordVault</name>
    <message>
        <location filename="../../ui/PasswordVault.cpp" line="71"/>
        <source>the keychain did not store the password: %1</source>
        <translation>钥匙串未能保存密码：%1</translation>
    </message>
</context>
<context>
    <name>keel::ProposeDialog</name>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="29"/>
        <source>Propose: %1</source>
        <translation>提议：%1</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/ProposeDialog.cpp" line="32"/>
        <source>&lt;b&gt;%n row(s)&lt;/b&gt; will be affected. %1</source>
        <translation>
            <numerusform>将影响 &lt;b&gt;%n 行&lt;/b&gt;。%1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="38"/>
        <source>Targets</source>
        <translation>对象</translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="41"/>
        <source>… and %1 more</source>
        <translation>……另有 %1 条</translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="45"/>
        <source>Only these rows, at the versions shown, will be touched; a row that changes before execution is skipped and reported. A second person with keel_approver must approve.</source>
        <translation>只会改动这些行（以所示版本为准）；执行前发生变化的行会被跳过并报告。需要另一位 keel_approver 批准。</translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="52"/>
        <source>why (at least 5 characters), e.g. the incident number</source>
        <translation>原因（至少 5 个字符），例如事件编号</translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="53"/>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="55"/>
        <source>Confirm the count</source>
        <translation>确认数量</translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="56"/>
        <source>&amp;Reason</source>
        <translation>原因(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="57"/>
        <source>Type &amp;%1 to confirm</source>
        <translation>输入 %1 以确认(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="60"/>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="63"/>
        <source>&amp;Propose</source>
        <translation>提议(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="98"/>
        <source>Refused: %1</source>
        <translation>被拒绝：%1</translation>
    </message>
    <message>
        <location filename="../../ui/ProposeDialog.cpp" line="102"/>
        <source>Proposal #%1 waits for approval (targets hash %2…).</source>
        <translation>提案 #%1 等待批准（对象哈希 %2…）。</translation>
    </message>
</context>
<context>
    <name>keel::RecordExport</name>
    <message>
        <location filename="../../ui/RecordExport.cpp" line="38"/>
        <source>Export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
    <message>
        <location filename="../../ui/RecordExport.cpp" line="42"/>
        <source>Exported %1 row(s) to %2 (SHA-256 %3), recorded in the audit trail.</source>
        <translation>已导出 %1 行到 %2（SHA-256 %3），并已记入审计日志。</translation>
    </message>
    <message>
        <location filename="../../ui/RecordExport.cpp" line="53"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../ui/RecordExport.cpp" line="54"/>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
</context>
<context>
    <name>keel::SagasView</name>
    <message>
        <location filename="../../ui/SagasView.cpp" line="44"/>
        <source>&amp;Retry now…</source>
        <translation>立即重试(&amp;R)…</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="47"/>
        <source>The waiting step or compensation is attempted again at once.</source>
        <translation>等待中的步骤或补偿立即再次执行。</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="51"/>
        <source>Force &amp;compensation…</source>
        <translation>强制补偿(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="54"/>
        <source>The saga stops going forward and undoes what it did (refunds).</source>
        <translation>Saga 停止前进并撤销已完成的操作（退款）。</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="58"/>
        <source>&amp;Park…</source>
        <translation>搁置(&amp;P)…</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="61"/>
        <source>The saga stops for good; a suspense case opens and the money in question moves to suspense.</source>
        <translation>Saga 永久停止；开立差错案件，相关资金转入差错户。</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="65"/>
        <source>Res&amp;ume…</source>
        <translation>恢复(&amp;U)…</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="68"/>
        <source>The parked saga compensates again; its case closes and the suspense money returns.</source>
        <translation>已搁置的 Saga 重新补偿；案件关闭，差错户资金退回。</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="72"/>
        <source>S&amp;kip step…</source>
        <translation>跳过步骤(&amp;K)…</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="75"/>
        <source>The current step (or compensation) counts as done without running.</source>
        <translation>当前步骤（或补偿）不执行，直接视为完成。</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="98"/>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="100"/>
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="102"/>
        <source>%1 h</source>
        <translation>%1 小时</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="103"/>
        <source>%1 d</source>
        <translation>%1 天</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="119"/>
        <source>S&amp;tuck only</source>
        <translation>仅卡住的(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="120"/>
        <location filename="../../ui/SagasView.cpp" line="198"/>
        <source>Saga</source>
        <translation>Saga</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="120"/>
        <location filename="../../ui/SagasView.cpp" line="161"/>
        <source>Definition</source>
        <translation>定义</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="120"/>
        <location filename="../../ui/SagasView.cpp" line="126"/>
        <location filename="../../ui/SagasView.cpp" line="167"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="120"/>
        <source>Stuck</source>
        <translation>卡住</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="120"/>
        <location filename="../../ui/SagasView.cpp" line="126"/>
        <location filename="../../ui/SagasView.cpp" line="202"/>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="121"/>
        <location filename="../../ui/SagasView.cpp" line="126"/>
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="121"/>
        <location filename="../../ui/SagasView.cpp" line="170"/>
        <source>Merchant</source>
        <translation>商户</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="121"/>
        <location filename="../../ui/SagasView.cpp" line="172"/>
        <source>Business key</source>
        <translation>业务键</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="121"/>
        <location filename="../../ui/SagasView.cpp" line="179"/>
        <source>Age</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="122"/>
        <location filename="../../ui/SagasView.cpp" line="127"/>
        <source>Last error</source>
        <translation>最近错误</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="123"/>
        <source>Sagas</source>
        <translation>Saga 列表</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="124"/>
        <source>Load &amp;more</source>
        <translation>加载更多(&amp;M)</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="126"/>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="126"/>
        <source>Compensation attempts</source>
        <translation>补偿次数</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="127"/>
        <source>Started</source>
        <translation>开始</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="127"/>
        <source>Finished</source>
        <translation>结束</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="128"/>
        <source>Steps</source>
        <translation>步骤</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="160"/>
        <source>definition</source>
        <translation>定义</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="162"/>
        <source>any status</source>
        <translation>任意状态</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="168"/>
        <source>merchant id</source>
        <translation>商户编号</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="171"/>
        <source>business key</source>
        <translation>业务键</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="173"/>
        <source>any age</source>
        <translation>任意时长</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="174"/>
        <source>older than 5 min</source>
        <translation>超过 5 分钟</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="175"/>
        <source>older than 1 h</source>
        <translation>超过 1 小时</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="176"/>
        <source>older than 1 d</source>
        <translation>超过 1 天</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="180"/>
        <source>&amp;Find</source>
        <translation>查找(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="202"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="202"/>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="202"/>
        <source>Detail</source>
        <translation>详情</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="203"/>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="285"/>
        <source>stuck</source>
        <translation>卡住</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="330"/>
        <source>&lt;b&gt;%1&lt;/b&gt; · %2 v%3 · %4 · version %5 · compensation rounds %6/%7%8</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; · %2 v%3 · %4 · 版本 %5 · 补偿轮次 %6/%7%8</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="337"/>
        <source> · a worker holds it now</source>
        <translation> · 当前由 worker 执行中</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="399"/>
        <source>Proposing needs keel_operator or keel_sre.</source>
        <translation>提议需要 keel_operator 或 keel_sre 角色。</translation>
    </message>
    <message>
        <location filename="../../ui/SagasView.cpp" line="401"/>
        <source>This moves money: only keel_operator proposes it.</source>
        <translation>此操作涉及资金：只有 keel_operator 可以提议。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/SagasView.cpp" line="418"/>
        <source>%n saga(s)</source>
        <translation>
            <numerusform>%n 个 Saga</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>keel::ReplicaLagLabel</name>
    <message>
        <location filename="../../ui/ReplicaLagLabel.cpp" line="17"/>
        <source>Read replica lag</source>
        <translation>只读副本延迟</translation>
    </message>
    <message>
        <location filename="../../ui/ReplicaLagLabel.cpp" line="18"/>
        <source>The dashboards and the payment history are read from the replica; other views and every action use the primary.</source>
        <translation>仪表盘与支付历史读自只读副本；其他视图和所有操作都使用主库。</translation>
    </message>
    <message>
        <location filename="../../ui/ReplicaLagLabel.cpp" line="20"/>
        <source>Replica: asking…</source>
        <translation>副本：查询中…</translation>
    </message>
    <message>
        <location filename="../../ui/ReplicaLagLabel.cpp" line="70"/>
        <source>Replica: lag unknown</source>
        <translation>副本：延迟未知</translation>
    </message>
    <message>
        <location filename="../../ui/ReplicaLagLabel.cpp" line="72"/>
        <source>Replica: not a standby</source>
        <translation>副本：不是备库</translation>
    </message>
    <message>
        <location filename="../../ui/ReplicaLagLabel.cpp" line="75"/>
        <source>Replica: current</source>
        <translation>副本：已同步</translation>
    </message>
    <message>
        <location filename="../../ui/ReplicaLagLabel.cpp" line="77"/>
        <source>Replica: behind, nothing replayed yet</source>
        <translation>副本：落后，尚未回放任何事务</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/ReplicaLagLabel.cpp" line="80"/>
        <source>Replica: %n s behind</source>
        <translation>
            <numerusform>副本：落后 %n 秒</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/ReplicaLagLabel.cpp" line="60"/>
        <source>Replica: no answer for %n s</source>
        <translation>
            <numerusform>副本：%n 秒无应答</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>keel::StatusWords</name>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="13"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="14"/>
        <source>compensating</source>
        <translation>补偿中</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="15"/>
        <source>succeeded</source>
        <translation>成功</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="16"/>
        <source>compensated</source>
        <translation>已补偿</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="17"/>
        <source>parked</source>
        <translation>已挂起</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="18"/>
        <source>resolved</source>
        <translation>已人工解决</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="19"/>
        <source>pending</source>
        <translation>待处理</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="20"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="21"/>
        <source>compensation failed</source>
        <translation>补偿失败</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="22"/>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="23"/>
        <source>open</source>
        <translation>未结</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="24"/>
        <source>in review</source>
        <translation>处理中</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="25"/>
        <source>written off</source>
        <translation>已核销</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="26"/>
        <source>proposed</source>
        <translation>已提议</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="27"/>
        <source>approved</source>
        <translation>已批准</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="28"/>
        <source>rejected</source>
        <translation>已驳回</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="29"/>
        <source>queued</source>
        <translation>已排队</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="30"/>
        <source>executed</source>
        <translation>已执行</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="31"/>
        <source>expired</source>
        <translation>已过期</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="32"/>
        <source>delivered</source>
        <translation>已送达</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="33"/>
        <source>Created</source>
        <translation>已创建</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="34"/>
        <source>Authorizing</source>
        <translation>授权中</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="35"/>
        <source>Authorized</source>
        <translation>已授权</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="36"/>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="37"/>
        <source>Capturing</source>
        <translation>请款中</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="38"/>
        <source>Captured</source>
        <translation>已请款</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="39"/>
        <source>Refunding</source>
        <translation>退款中</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="40"/>
        <source>Refunded</source>
        <translation>已退款</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="41"/>
        <source>Reversed</source>
        <translation>已撤销</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="42"/>
        <source>Canceled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="43"/>
        <source>applied</source>
        <translation>已应用</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="44"/>
        <source>conflicting</source>
        <translation>冲突</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="45"/>
        <source>amount mismatch</source>
        <translation>金额不符</translation>
    </message>
    <message>
        <location filename="../../ui/StatusWords.cpp" line="46"/>
        <source>unknown charge</source>
        <translation>未知支付</translation>
    </message>
</context>
<context>
    <name>keel::SuspenseView</name>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="44"/>
        <source>%1 h</source>
        <translation>%1 小时</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="45"/>
        <source>%1 d</source>
        <translation>%1 天</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="52"/>
        <source>&amp;Mine only</source>
        <translation>仅我的(&amp;M)</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="53"/>
        <source>Past &amp;deadline only</source>
        <translation>仅已逾期(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="54"/>
        <source>From channel n&amp;otices only</source>
        <translation>仅渠道通知(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="56"/>
        <source>&amp;Load more</source>
        <translation>加载更多(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="58"/>
        <source>&amp;Take case</source>
        <translation>认领案件(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="59"/>
        <source>Add &amp;note…</source>
        <translation>添加备注(&amp;N)…</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="60"/>
        <source>Retry &amp;compensation…</source>
        <translation>重试补偿(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="61"/>
        <source>Ad&amp;just ledger…</source>
        <translation>账务调整(&amp;J)…</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="62"/>
        <source>&amp;Write off…</source>
        <translation>核销(&amp;W)…</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="63"/>
        <source>&amp;Give back…</source>
        <translation>退回承担方(&amp;G)…</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="100"/>
        <source>To the &amp;merchant…</source>
        <translation>退回商户(&amp;M)…</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="104"/>
        <source>To operational &amp;loss…</source>
        <translation>冲回运营损失(&amp;L)…</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="185"/>
        <source>The channel gave again money it had taken back (a dispute reversed, or the statement that showed it withdrawn): what the case holds returns to whoever bore the take-back, and the charge may be refunded again.</source>
        <translation>渠道退回了此前扣回的资金（拒付被撤销，或显示拒付的对账单已撤回）：案件中的资金退回给承担扣回的一方，该笔支付可再次退款。</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="520"/>
        <source>Case %1 closes: the %2 the channel gave again for charge %3 leaves suspense for %4, which bore the take-back, and the charge may be refunded that much again.</source>
        <translation>案件 %1 关闭：渠道为支付 %3 退回的 %2 从挂账转入承担扣回的 %4，该笔支付可再次退还同等金额。</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="69"/>
        <location filename="../../ui/SuspenseView.cpp" line="146"/>
        <source>Case</source>
        <translation>案件</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="69"/>
        <source>Opened</source>
        <translation>开立时间</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="69"/>
        <source>Age</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="69"/>
        <source>Amount</source>
        <translation>金额</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="70"/>
        <source>Currency</source>
        <translation>币种</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="70"/>
        <source>Owner</source>
        <translation>负责人</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="70"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="70"/>
        <source>Deadline</source>
        <translation>期限</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="71"/>
        <source>Saga</source>
        <translation>Saga</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="71"/>
        <source>Charge</source>
        <translation>支付</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="71"/>
        <source>Charge state</source>
        <translation>支付状态</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="72"/>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="72"/>
        <source>Channel notice</source>
        <translation>渠道通知</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="73"/>
        <source>Suspense cases</source>
        <translation>差错案件</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="113"/>
        <source>Open and in review</source>
        <translation>未结与处理中</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="114"/>
        <source>Resolved</source>
        <translation>已解决</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="115"/>
        <source>All cases</source>
        <translation>全部案件</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="116"/>
        <source>Cases</source>
        <translation>案件</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="117"/>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="118"/>
        <source>E&amp;xport CSV…</source>
        <translation>导出 CSV(&amp;X)…</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="148"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="148"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="148"/>
        <source>What happened</source>
        <translation>经过</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="149"/>
        <source>Money trail</source>
        <translation>资金轨迹</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="154"/>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="171"/>
        <source>Working cases needs keel_operator.</source>
        <translation>处理案件需要 keel_operator 角色。</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="175"/>
        <source>Notes need keel_operator or keel_approver.</source>
        <translation>添加备注需要 keel_operator 或 keel_approver 角色。</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="261"/>
        <source>overdue since %1</source>
        <translation>自 %1 起逾期</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="306"/>
        <source>&lt;b&gt;Case %1&lt;/b&gt; · %2 %3 · %4%5 · %6</source>
        <translation>&lt;b&gt;案件 %1&lt;/b&gt; · %2 %3 · %4%5 · %6</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="308"/>
        <source>no money held</source>
        <translation>无挂账资金</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="311"/>
        <source>, taken by %1</source>
        <translation>，由 %1 认领</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="364"/>
        <source>Case %1 is yours (%2).</source>
        <translation>案件 %1 已由你认领（%2）。</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="365"/>
        <source>Refused by the database: %1</source>
        <translation>数据库拒绝：%1</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="386"/>
        <source>Note added to case %1.</source>
        <translation>已为案件 %1 添加备注。</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="387"/>
        <source>Refused: %1</source>
        <translation>被拒绝：%1</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="400"/>
        <source>Note on case %1</source>
        <translation>案件 %1 的备注</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="403"/>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="405"/>
        <source>ticket, bank reference, file name…</source>
        <translation>工单、银行流水号、文件名……</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="406"/>
        <source>Reference</source>
        <translation>参考号</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="407"/>
        <source>&amp;Note</source>
        <translation>备注(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="408"/>
        <source>&amp;Reference</source>
        <translation>参考号(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="429"/>
        <source>Case %1 closes: its saga compensates again and the %2 %3 held in suspense returns to the merchant&apos;s account for the refund to take.</source>
        <translation>案件 %1 将关闭：其 Saga 重新补偿，差错户中的 %2 %3 退回商户账户，供退款使用。</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="455"/>
        <source>nothing (the case holds no money)</source>
        <translation>无（案件未挂账资金）</translation>
    </message>
    <message>
        <location filename="../../ui/SuspenseView.cpp" line="459"/>
        <source>Case %1 is written off: %2 leaves suspense for the write-off account, with the reason on the record.</source>
        <translation>案件 %1 将被核销：%2 从差错户转入核销账户，原因记录在案。</translation>
    </message>
</context>
</TS>
