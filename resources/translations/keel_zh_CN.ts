<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>QObject</name>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="170"/>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="177"/>
        <source>Exported %1 rows…</source>
        <translation>已导出 %1 行…</translation>
    </message>
</context>
<context>
    <name>keel::ChartPanel</name>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="24"/>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="25"/>
        <source>Export the chart &quot;%1&quot; to PNG or PDF</source>
        <translation>将图表“%1”导出为 PNG 或 PDF</translation>
    </message>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="110"/>
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <location filename="../../ui/ChartPanel.cpp" line="111"/>
        <source>PNG image (*.png);;PDF document (*.pdf)</source>
        <translation>PNG 图片 (*.png);;PDF 文档 (*.pdf)</translation>
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
        <location filename="../../ui/HistoryView.cpp" line="42"/>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="44"/>
        <source>charge id (ch_…) or order number</source>
        <translation>支付单号 (ch_…) 或商户订单号</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="45"/>
        <source>Charge id or order number</source>
        <translation>支付单号或商户订单号</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="46"/>
        <source>merchant id</source>
        <translation>商户 ID</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="47"/>
        <source>min, minor units</source>
        <translation>最小值（最小货币单位）</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="48"/>
        <source>max, minor units</source>
        <translation>最大值（最小货币单位）</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="49"/>
        <source>any state</source>
        <translation>任意状态</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="53"/>
        <source>Payment state</source>
        <translation>支付状态</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="54"/>
        <source>&amp;Search</source>
        <translation>搜索(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="73"/>
        <source>Payments</source>
        <translation>支付记录</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="74"/>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="74"/>
        <source>Where</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="74"/>
        <source>What</source>
        <translation>内容</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="76"/>
        <source>Timeline of the selected payment</source>
        <translation>所选支付的时间线</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/HistoryView.cpp" line="97"/>
        <source>%n payment(s) loaded</source>
        <translation>
            <numerusform>已加载 %n 笔支付</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="98"/>
        <source>; scroll for more</source>
        <translation>；向下滚动加载更多</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="132"/>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/HistoryView.cpp" line="186"/>
        <source>Exported %n payment(s).</source>
        <translation>
            <numerusform>已导出 %n 笔支付。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="197"/>
        <source>Export payments</source>
        <translation>导出支付记录</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="197"/>
        <source>CSV (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="200"/>
        <source>Exporting payments…</source>
        <translation>正在导出支付记录…</translation>
    </message>
    <message>
        <location filename="../../ui/HistoryView.cpp" line="200"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>keel::MainWindow</name>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="26"/>
        <source>keel console</source>
        <translation>keel 运维控制台</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="31"/>
        <source>Views</source>
        <translation>视图</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="33"/>
        <source>Overview</source>
        <translation>总览</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="34"/>
        <source>Payment history</source>
        <translation>支付历史</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="58"/>
        <source>Payment history: %1</source>
        <translation>支付历史：%1</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="65"/>
        <source>The dashboard could not be refreshed: %1</source>
        <translation>仪表盘刷新失败：%1</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="82"/>
        <source>Connection lost: %1. keel keeps retrying.</source>
        <translation>连接中断：%1。keel 会自动重试。</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="84"/>
        <source>not connected</source>
        <translation>未连接</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="122"/>
        <source>superuser</source>
        <translation>超级用户</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="124"/>
        <source>no keel role</source>
        <translation>无 keel 角色</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="126"/>
        <source>%1 on %2 · %3 · schema v%4</source>
        <translation>%1 @ %2 · %3 · 架构 v%4</translation>
    </message>
    <message>
        <location filename="../../ui/MainWindow.cpp" line="130"/>
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
        <location filename="../../ui/OverviewView.cpp" line="62"/>
        <source>&amp;Range:</source>
        <translation>时间范围(&amp;R)：</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="64"/>
        <source>15 minutes</source>
        <translation>15 分钟</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="65"/>
        <source>1 hour</source>
        <translation>1 小时</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="66"/>
        <source>6 hours</source>
        <translation>6 小时</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="67"/>
        <source>24 hours</source>
        <translation>24 小时</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="68"/>
        <source>7 days</source>
        <translation>7 天</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="71"/>
        <source>Time range</source>
        <translation>时间范围</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="80"/>
        <source>Idempotency hit and conflict rate</source>
        <translation>幂等命中率与冲突率</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="80"/>
        <source>% of keyed requests</source>
        <translation>占带幂等键请求的百分比</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="81"/>
        <source>Charge requests by outcome</source>
        <translation>下单请求（按结果）</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="81"/>
        <source>requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="82"/>
        <source>Charge latency</source>
        <translation>下单延迟</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="82"/>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="83"/>
        <source>Money captured and refunded</source>
        <translation>请款与退款金额</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="83"/>
        <source>major units</source>
        <translation>主币单位</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="84"/>
        <source>Payment state transitions</source>
        <translation>支付状态流转</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="84"/>
        <source>payments</source>
        <translation>笔数</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="135"/>
        <source>hit rate (replays)</source>
        <translation>命中率（重放）</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="136"/>
        <source>conflicts (409 + 422)</source>
        <translation>冲突 (409 + 422)</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="140"/>
        <source>new</source>
        <translation>新请求</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="141"/>
        <source>replayed</source>
        <translation>重放</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="143"/>
        <source>in flight 409</source>
        <translation>处理中 409</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="145"/>
        <source>mismatch 422</source>
        <translation>参数不一致 422</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="147"/>
        <source>other 4xx</source>
        <translation>其他 4xx</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="168"/>
        <source>%1 captured</source>
        <translation>%1 已请款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="170"/>
        <source>%1 refunded</source>
        <translation>%1 已退款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="176"/>
        <source>authorized</source>
        <translation>已授权</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="177"/>
        <source>declined or failed</source>
        <translation>拒绝或失败</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="178"/>
        <source>captured</source>
        <translation>已请款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="179"/>
        <source>refunded</source>
        <translation>已退款</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="184"/>
        <source>%1 in %2</source>
        <translation>%1 笔处于 %2</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="186"/>
        <source>suspense %1</source>
        <translation>差错户 %1</translation>
    </message>
    <message>
        <location filename="../../ui/OverviewView.cpp" line="188"/>
        <source>No payments in flight; suspense accounts are empty.</source>
        <translation>没有处理中的支付；差错户余额为零。</translation>
    </message>
</context>
</TS>
