<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>QObject</name>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="37"/>
        <source>%1 must be a whole number ≥ 0; got &quot;%2&quot;</source>
        <translation>%1 必须是 ≥ 0 的整数；收到的是“%2”</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="285"/>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="292"/>
        <source>Exported %1 rows…</source>
        <translation>已导出 %1 行…</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="336"/>
        <source>the read replica: %1</source>
        <translation>只读副本：%1</translation>
    </message>
</context>
<context>
    <name>keel::ChartPanel</name>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="72"/>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="73"/>
        <source>Export the chart &quot;%1&quot; to PNG or PDF</source>
        <translation>将图表“%1”导出为 PNG 或 PDF</translation>
    </message>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="202"/>
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="203"/>
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
        <location filename="../../ui/ConnectDialog.cpp" line="37"/>
        <source>Saved connections</source>
        <translation>已保存的连接</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="39"/>
        <source>&amp;New</source>
        <translation>新建(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="40"/>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="48"/>
        <source>Host and port</source>
        <translation>主机和端口</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="49"/>
        <source>Service name (pg_service.conf)</source>
        <translation>服务名（pg_service.conf）</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="50"/>
        <source>Connection URI</source>
        <translation>连接 URI</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="51"/>
        <source>the local socket</source>
        <translation>本地套接字</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="53"/>
        <source>default (5432)</source>
        <translation>默认 (5432)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="54"/>
        <source>same as the user name</source>
        <translation>与用户名相同</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="55"/>
        <source>your login name</source>
        <translation>你的登录名</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="58"/>
        <source>libpq&apos;s default (prefer)</source>
        <translation>libpq 默认 (prefer)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="61"/>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="62"/>
        <source>Choose the root certificate</source>
        <translation>选择根证书</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="66"/>
        <source>~/.postgresql/root.crt</source>
        <translation>~/.postgresql/root.crt</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="67"/>
        <source>optional, e.g. host=replica.example</source>
        <translation>可选，例如 host=replica.example</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="69"/>
        <source>from the keychain, .pgpass or PGPASSWORD if empty</source>
        <translation>留空则使用钥匙串、.pgpass 或 PGPASSWORD</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="70"/>
        <source>Remember in the system &amp;keychain</source>
        <translation>保存在系统钥匙串中(&amp;K)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="74"/>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="75"/>
        <source>Connect &amp;with:</source>
        <translation>连接方式(&amp;W)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="76"/>
        <source>&amp;Host:</source>
        <translation>主机(&amp;H)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="77"/>
        <source>&amp;Port:</source>
        <translation>端口(&amp;P)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="78"/>
        <source>&amp;Database:</source>
        <translation>数据库(&amp;D)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="79"/>
        <source>&amp;User:</source>
        <translation>用户(&amp;U)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="80"/>
        <source>&amp;Service:</source>
        <translation>服务(&amp;S)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="81"/>
        <source>U&amp;RI:</source>
        <translation>URI(&amp;R)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="82"/>
        <source>&amp;TLS:</source>
        <translation>TLS(&amp;T)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="83"/>
        <source>Root &amp;certificate:</source>
        <translation>根证书(&amp;C)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="86"/>
        <source>Read &amp;replica:</source>
        <translation>只读副本(&amp;R)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="87"/>
        <source>Pass&amp;word:</source>
        <translation>密码(&amp;W)：</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="90"/>
        <source>&amp;Connect</source>
        <translation>连接(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="116"/>
        <source>Root certificate</source>
        <translation>根证书</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="117"/>
        <source>Certificates (*.crt *.pem);;All files (*)</source>
        <translation>证书 (*.crt *.pem);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="135"/>
        <source>No keychain is available, so the password is asked for each time and never stored.</source>
        <translation>没有可用的钥匙串，因此每次都会询问密码，且从不保存。</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="221"/>
        <source>New connection</source>
        <translation>新连接</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="223"/>
        <source>New connection %1</source>
        <translation>新连接 %1</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="326"/>
        <source>Connecting to %1…</source>
        <translation>正在连接 %1…</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="380"/>
        <source>The server refused the password kept in the keychain; enter it again.</source>
        <translation>服务器拒绝了钥匙串中保存的密码，请重新输入。</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="371"/>
        <source>The server asks for a password, and none was found in the keychain, .pgpass or PGPASSWORD. Enter it below.</source>
        <translation>服务器要求密码，但在钥匙串、.pgpass 或 PGPASSWORD 中都没有找到。请在下方输入。</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="381"/>
        <source>The server refused the password: %1</source>
        <translation>服务器拒绝了该密码：%1</translation>
    </message>
    <message>
        <location filename="../../ui/ConnectDialog.cpp" line="385"/>
        <source>Could not connect: %1</source>
        <translation>无法连接：%1</translation>
    </message>
</context>
<context>
    <name>keel::HistoryModel</name>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="74"/>
        <source>Charge</source>
        <translation>支付单</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="74"/>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="75"/>
        <source>Merchant</source>
        <translation>商户</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="75"/>
        <source>Order no.</source>
        <translation>商户订单号</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="76"/>
        <source>Amount</source>
        <translation>金额</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="76"/>
        <source>Captured</source>
        <translation>已请款</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="77"/>
        <source>Refunded</source>
        <translation>已退款</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryModel.cpp" line="77"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
</context>
<context>
    <name>keel::HistoryView</name>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="52"/>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="55"/>
        <source>charge id (ch_…) or order number</source>
        <translation>支付单号 (ch_…) 或商户订单号</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="56"/>
        <source>Charge id or order number</source>
        <translation>支付单号或商户订单号</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="57"/>
        <location filename="../../ui/HistoryView.cpp" line="160"/>
        <source>merchant id</source>
        <translation>商户 ID</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="58"/>
        <source>min, minor units</source>
        <translation>最小值（最小货币单位）</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="59"/>
        <source>max, minor units</source>
        <translation>最大值（最小货币单位）</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="60"/>
        <source>any state</source>
        <translation>任意状态</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="64"/>
        <source>Payment state</source>
        <translation>支付状态</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="65"/>
        <source>any time</source>
        <translation>任意时间</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="66"/>
        <source>last hour</source>
        <translation>最近 1 小时</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="67"/>
        <source>last 24 hours</source>
        <translation>最近 24 小时</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="68"/>
        <source>last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="69"/>
        <source>last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="70"/>
        <source>between…</source>
        <translation>指定区间…</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="71"/>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="80"/>
        <source>Created from</source>
        <translation>创建时间起</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="81"/>
        <source>Created before</source>
        <translation>创建时间止</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="84"/>
        <source>&amp;Search</source>
        <translation>搜索(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="111"/>
        <source>Payments</source>
        <translation>支付记录</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="112"/>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="112"/>
        <source>Where</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="112"/>
        <source>What</source>
        <translation>内容</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="114"/>
        <source>Timeline of the selected payment</source>
        <translation>所选支付的时间线</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/HistoryView.cpp" line="141"/>
        <source>%n payment(s) loaded</source>
        <translation>
            <numerusform>已加载 %n 笔支付</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="142"/>
        <source>; scroll for more</source>
        <translation>；向下滚动加载更多</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="164"/>
        <location filename="../../ui/HistoryView.cpp" line="173"/>
        <source>min amount</source>
        <translation>最小金额</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="167"/>
        <source>max amount</source>
        <translation>最大金额</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="174"/>
        <source>min amount is above max amount</source>
        <translation>最小金额大于最大金额</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="194"/>
        <source>created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="195"/>
        <source>the start of the time range must be before its end</source>
        <translation>时间范围的开始必须早于结束</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="225"/>
        <source>Not shown, because this connection may not read them: %1.</source>
        <translation>未显示（当前连接无权读取）：%1。</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="244"/>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/HistoryView.cpp" line="301"/>
        <source>Exported %n payment(s).</source>
        <translation>
            <numerusform>已导出 %n 笔支付。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="312"/>
        <source>Export payments</source>
        <translation>导出支付记录</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="312"/>
        <source>CSV (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="315"/>
        <source>Exporting payments…</source>
        <translation>正在导出支付记录…</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="315"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>keel::MainWindow</name>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="42"/>
        <source>keel console</source>
        <translation>keel 运维控制台</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="47"/>
        <source>Views</source>
        <translation>视图</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="49"/>
        <source>Overview</source>
        <translation>总览</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="50"/>
        <source>Payment history</source>
        <translation>支付历史</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="63"/>
        <source>Payment history: %1</source>
        <translation>支付历史：%1</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="69"/>
        <source>The dashboard could not be refreshed: %1</source>
        <translation>仪表盘刷新失败：%1</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="91"/>
        <source>The read replica is unreachable: %1. keel keeps retrying.</source>
        <translation>只读副本不可达：%1。keel 会自动重试。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="103"/>
        <source>Connection lost: %1. keel keeps retrying.</source>
        <translation>连接中断：%1。keel 会自动重试。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="105"/>
        <source>not connected</source>
        <translation>未连接</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="121"/>
        <source>&amp;Connection</source>
        <translation>连接(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="122"/>
        <source>&amp;Connect to…</source>
        <translation>连接到(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="126"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="128"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="131"/>
        <source>&amp;Overview</source>
        <translation>总览(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="133"/>
        <source>Payment &amp;history</source>
        <translation>支付历史(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="136"/>
        <source>&amp;Find a payment</source>
        <translation>查找支付(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="141"/>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="146"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="149"/>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="161"/>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="163"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="164"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="201"/>
        <source>Needs read access to keel.metrics_minute (any keel role but the gateway&apos;s).</source>
        <translation>需要 keel.metrics_minute 的读权限（除网关外的任一 keel 角色）。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="203"/>
        <source>Needs read access to keel.charges: keel_auditor, keel_operator or keel_approver.</source>
        <translation>需要 keel.charges 的读权限：keel_auditor、keel_operator 或 keel_approver。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="252"/>
        <source>superuser</source>
        <translation>超级用户</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="254"/>
        <source>no keel role</source>
        <translation>无 keel 角色</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="256"/>
        <source>%1 on %2 · %3 · schema v%4</source>
        <translation>%1 @ %2 · %3 · 架构 v%4</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="260"/>
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
        <location filename="../../ui/OverviewView.cpp" line="85"/>
        <source>Idempotency hit and conflict rate</source>
        <translation>幂等命中率与冲突率</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="85"/>
        <source>% of keyed requests</source>
        <translation>占带幂等键请求的百分比</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="86"/>
        <source>Charge requests by outcome</source>
        <translation>下单请求（按结果）</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="86"/>
        <source>requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="87"/>
        <source>Charge latency</source>
        <translation>下单延迟</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="87"/>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="88"/>
        <source>Money captured and refunded</source>
        <translation>请款与退款金额</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="88"/>
        <location filename="../../ui/OverviewView.cpp" line="91"/>
        <source>major units</source>
        <translation>主币单位</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="89"/>
        <source>Payment state transitions</source>
        <translation>支付状态流转</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="89"/>
        <source>payments</source>
        <translation>笔数</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="90"/>
        <source>Payments by state</source>
        <translation>各状态支付笔数</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="90"/>
        <source>payments (log scale)</source>
        <translation>笔数（对数刻度）</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="91"/>
        <source>Suspense account balance</source>
        <translation>差错户余额</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="93"/>
        <source>Nothing parked in a suspense account in this range</source>
        <translation>此时间范围内没有资金进入差错户</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="181"/>
        <source>hit rate (replays)</source>
        <translation>命中率（重放）</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="182"/>
        <source>conflicts (409 + 422)</source>
        <translation>冲突 (409 + 422)</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="186"/>
        <source>new</source>
        <translation>新请求</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="187"/>
        <source>replayed</source>
        <translation>重放</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="189"/>
        <source>in flight 409</source>
        <translation>处理中 409</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="191"/>
        <source>mismatch 422</source>
        <translation>参数不一致 422</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="193"/>
        <source>other 4xx</source>
        <translation>其他 4xx</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="214"/>
        <source>%1 captured</source>
        <translation>%1 已请款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="217"/>
        <source>%1 refunded</source>
        <translation>%1 已退款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="223"/>
        <source>authorized</source>
        <translation>已授权</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="225"/>
        <source>declined or failed</source>
        <translation>拒绝或失败</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="227"/>
        <source>captured</source>
        <translation>已请款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="229"/>
        <source>refunded</source>
        <translation>已退款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="260"/>
        <source>%1 in %2</source>
        <translation>%1 笔处于 %2</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="262"/>
        <source>suspense %1</source>
        <translation>差错户 %1</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="265"/>
        <source>suspense balances need ledger access</source>
        <translation>差错户余额需要账本读权限</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="266"/>
        <source>No payments in flight; suspense accounts are empty.</source>
        <translation>没有处理中的支付；差错户余额为零。</translation>
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
</TS>
